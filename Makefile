# SPDX-License-Identifier: GPL-2.0
#
# nf-hipac top-level build.  The kernel module is built by Kbuild (the
# "Kbuild" file next to this one), the tools by user/Makefile; kernel tests
# run in a QEMU VM booting the distribution kernel (selftests/vm/).
#
#   make              module + tools
#   make check        install missing packages, build, run every test
#   make demo         install missing packages, build, show iptables vs
#                     nf-hipac throughput in the VM
#   make help         all targets

# Newest kernel headers: the running kernel's if installed, else the newest
# /lib/modules/*/build (the host may run a kernel we cannot build for).
KDIR ?= $(or $(wildcard /lib/modules/$(shell uname -r)/build),\
	     $(lastword $(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V)))
KVER ?= $(notdir $(patsubst %/build,%,$(KDIR)))
export KDIR KVER

PREFIX   ?= /usr/local
SBINDIR  ?= $(PREFIX)/sbin
MANDIR   ?= $(PREFIX)/share/man
DEPMOD   ?= depmod
# checkpatch.pl: from a kernel tree, or else taken out of Debian's
# linux-source tarball (apt-get install linux-source-6.1) into build/.
CHECKPATCH_TAR := $(firstword $(wildcard /usr/src/linux-source-*.tar.xz))
CHECKPATCH_OWN := build/checkpatch/scripts/checkpatch.pl
CHECKPATCH ?= $(firstword $(wildcard $(KDIR)/scripts/checkpatch.pl \
			/usr/src/linux-source-*/scripts/checkpatch.pl) \
		$(if $(CHECKPATCH_TAR),$(CHECKPATCH_OWN)))
TOOLS    := nf-hipac nf-hipac-save nf-hipac-restore nf-hipac6 \
	    nf-hipac6-save nf-hipac6-restore nf-hipac-set nf-hipac-sim
VM       := selftests/vm/run-vm.sh
VERSION  := $(shell cat VERSION)
DEB_SRC  := build/deb/nf-hipac-$(VERSION)

all: module user

# No KDIR means no headers: "make deps" installs linux-headers-amd64.
define need_kbuild
	@test -f Kbuild || { echo "make module: no Kbuild file yet," \
		"the kernel module cannot be built"; exit 1; }
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { echo "make module: no kernel" \
		"headers under /lib/modules/*/build (run 'make deps')"; exit 1; }
endef

module:
	$(need_kbuild)
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

module-debug:
	$(need_kbuild)
	$(MAKE) -C $(KDIR) M=$(CURDIR) CONFIG_NF_HIPAC_DEBUG=y modules

user:
	$(MAKE) -C user

deps:
	@selftests/vm/deps.sh

# Sub-makes keep the order deps -> build -> tests even under -j.  A build
# failure counts as one failed test but does not stop the tests that can
# still run, so the summary line is always printed.
check: deps
	@rc=0; $(MAKE) --no-print-directory all || rc=1; \
		NFHP_BUILD_FAILED=$$rc selftests/vm/check.sh all

check-user: deps
	@selftests/vm/check.sh user

check-vm: deps
	@rc=0; $(MAKE) --no-print-directory all || rc=1; \
		NFHP_BUILD_FAILED=$$rc selftests/vm/check.sh vm

# The VM selftests on a debug kernel (KASAN, lockdep, kmemleak, UBSAN) built
# from linux-source-6.1 and cached in /var/cache/nf-hipac/debug-kernel.
check-debug: deps
	@selftests/debug/check-debug.sh

demo: deps
	@$(MAKE) --no-print-directory all
	$(VM) --timeout 900 -- selftests/demo.sh

bench:
	@test -x bench/run-core-bench.sh || { echo "make bench:" \
		"bench/run-core-bench.sh does not exist yet"; exit 1; }
	bench/run-core-bench.sh
	bench/lookup-counts.sh
	bench/ipv6-pair.sh -r 3
	bench/set-bench.sh

# Issue 48's worst case: bench/worst.py's random sets with many dimensions
# and user chains at 100, 1k and 10k rules, each under a time limit
# (about 30 minutes); WORST="-n 5 -s 100,1000" for a short run.
bench-worst:
	bench/worst-sweep.sh $(WORST)

# The in-kernel benchmark of issue 5 in one VM run (about an hour, with
# issue 44's set rows and issue 45's stateful rows): bench/kernel/bench.sh; NFHP_BK_QUICK=1 for a short
# development run.
bench-kernel: deps
	@$(MAKE) --no-print-directory all
	@command -v gnuplot >/dev/null && command -v perf >/dev/null || \
		apt-get install -y gnuplot-nox linux-perf
	bench/kernel/bench.sh

# Commit time in the kernel at 1k, 10k and 100k rules: single rules, and
# the rule set restored again; then -L, -S, save and -C against
# iptables-legacy on the same sets (LIST="-q" for a short run).
bench-commit: deps
	@$(MAKE) --no-print-directory all
	bench/kernel/commit-latency.sh
	bench/kernel/list-latency.sh $(LIST)

# Restore time of the university firewall of selftests/nf_hipac/diff/
# real-world/, nf-hipac against iptables-legacy (issue 48: within 5 s).
bench-real-world: deps
	@$(MAKE) --no-print-directory all
	bench/kernel/restore-real.sh

# Issue 44's sets in the kernel: memory per entry, load time and 1,000
# updates of 100k hosts and 100k prefixes, ipset and nft against
# nf-hipac-set and nf-hipac rules, in one VM run (25 minutes on a quiet
# host, an hour on a busy one); then bench-kernel's set rows alone, their
# throughput against no firewall, in another (about 25 minutes).  The second runs even when the first failed
# (say, a kernel log that an RCU stall under nft's updates flagged): each
# writes its own results.
bench-sets-kernel: deps
	@$(MAKE) --no-print-directory all
	@command -v perf >/dev/null || apt-get install -y linux-perf
	rc=0; bench/kernel/set-memory.sh || rc=$$?; \
	NFHP_BK_SETS_ONLY=1 bench/kernel/bench.sh && exit $$rc

# Issue 45's dynamic states: bench-kernel's stateful rows alone (10k rules
# and a keep-state rule against stateless nf-hipac and conntrack under
# iptables-legacy and nft: tcp, udp64, new flows), then 10^6 states
# against nf_conntrack's memory, in one VM run (about 35 minutes):
# bench/results/states-throughput.md.
bench-states-kernel: deps
	@$(MAKE) --no-print-directory all
	@command -v perf >/dev/null || apt-get install -y linux-perf
	NFHP_BK_STATES_ONLY=1 bench/kernel/bench.sh

# libFuzzer targets of the core and the parser, FUZZ_SECONDS each (600).
fuzz: deps
	$(MAKE) -C user fuzz

install: all
	install -D -m 0644 nf_hipac.ko \
		$(DESTDIR)/lib/modules/$(KVER)/extra/nf_hipac.ko
	$(if $(DESTDIR),,$(DEPMOD) -a $(KVER))
	install -d $(DESTDIR)$(SBINDIR)
	install -m 0755 user/build/nf-hipac user/build/nf-hipac-sim \
		$(DESTDIR)$(SBINDIR)/
	ln -sf nf-hipac $(DESTDIR)$(SBINDIR)/nf-hipac-save
	ln -sf nf-hipac $(DESTDIR)$(SBINDIR)/nf-hipac-restore
	ln -sf nf-hipac $(DESTDIR)$(SBINDIR)/nf-hipac6
	ln -sf nf-hipac $(DESTDIR)$(SBINDIR)/nf-hipac6-save
	ln -sf nf-hipac $(DESTDIR)$(SBINDIR)/nf-hipac6-restore
	ln -sf nf-hipac $(DESTDIR)$(SBINDIR)/nf-hipac-set
	install -d $(DESTDIR)$(MANDIR)/man8
	for f in user/man/*.8; do \
		sed '/^\.TH /s/"nf-hipac [^"]*"/"nf-hipac $(VERSION)"/' $$f \
			> $(DESTDIR)$(MANDIR)/man8/$${f##*/}; \
	done

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/extra/nf_hipac.ko
	$(if $(DESTDIR),,$(DEPMOD) -a $(KVER))
	rm -f $(addprefix $(DESTDIR)$(SBINDIR)/,$(TOOLS))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(wildcard user/man/*.8)))

# Debian packages nf-hipac and nf-hipac-dkms (debian/), built in a copy of
# the tree under build/deb/ and copied here.  debian/changelog is written
# from VERSION, so the packages carry the version the tools and the
# module show.
deb:
	@for t in dpkg-buildpackage dh_dkms lintian; do \
		command -v $$t >/dev/null || { echo "make deb: no $$t" \
			"('make deps' installs it)"; exit 1; }; done
	rm -rf build/deb && mkdir -p $(DEB_SRC)
	if [ -e .git ]; then git ls-files -co --exclude-standard; \
	else find . -path ./build -prune -o -type f -print; fi | \
		while read -r f; do [ ! -f "$$f" ] || echo "$$f"; done | \
		tar -cf - -T - | tar -xf - -C $(DEB_SRC)
	printf '%s\n' "nf-hipac ($(VERSION)) unstable; urgency=medium" "" \
		"  * nf-hipac $(VERSION)$(if $(wildcard .git), ($(shell \
		git describe --always --dirty 2>/dev/null)))." "" \
		" -- $$(sed -n 's/^Maintainer: //p' debian/control)  $$(date -R)" \
		> $(DEB_SRC)/debian/changelog
	cd $(DEB_SRC) && dpkg-buildpackage -b -us -uc
	cp build/deb/nf-hipac_$(VERSION)_*.deb \
		build/deb/nf-hipac-dkms_$(VERSION)_*.deb .
	@ls -1 nf-hipac*_$(VERSION)_*.deb
	lintian build/deb/*.changes

# The packages in a clean Debian 12 root (debootstrap into build/pkgtest/),
# then the boot service's commands in the VM; not part of make check.
# PKG=--no-vm skips the VM.
check-packaging: deps deb
	selftests/packaging/check-packaging.sh $(PKG)

style: $(filter $(CHECKPATCH_OWN),$(CHECKPATCH))
	@test -n "$(CHECKPATCH)" || { echo "make style: checkpatch.pl not" \
		"found (looked in $(KDIR)/scripts and /usr/src/linux-source-*;" \
		"apt-get install linux-source-6.1 provides it)"; exit 1; }
	$(CHECKPATCH) --no-tree -f -q --summary-file \
		$(filter-out kernel/key.h, \
			$(wildcard kernel/*.[ch] include/uapi/linux/*.h))
	@# nfhp_u128 has to be a typedef: it carries kmalloc's 8-byte alignment.
	$(CHECKPATCH) --no-tree -f -q --summary-file --ignore NEW_TYPEDEFS \
		kernel/key.h
	$(MAKE) sparse

# sparse over every file of the module (C=2), with the endianness checks:
# any warning fails.
sparse:
	$(need_kbuild)
	@command -v sparse >/dev/null || { echo "make sparse: sparse not" \
		"found (apt-get install sparse)"; exit 1; }
	@mkdir -p build
	@$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 CF=-D__CHECK_ENDIAN__ modules \
		>build/sparse.log 2>&1; rc=$$?; cat build/sparse.log; \
		test $$rc = 0 && ! grep -E ': (warning|error):' build/sparse.log

$(CHECKPATCH_OWN):
	mkdir -p build/checkpatch
	tar -xJf $(CHECKPATCH_TAR) -C build/checkpatch --strip-components=1 \
		--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'

clean:
	$(if $(and $(wildcard Kbuild),$(KDIR)),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)
	$(MAKE) -C user clean
	rm -rf build

help:
	@echo "make [all]      build nf_hipac.ko (KDIR=$(KDIR)) and user/build/*"
	@echo "make module     only the kernel module; module-debug with DEBUG"
	@echo "make user       only the tools"
	@echo "make deps       apt-get install what selftests/vm/packages.txt" \
		"lists and is missing"
	@echo "make check      deps, build, userspace tests, VM selftests;" \
		"check-user / check-vm separately"
	@echo "make check-debug  VM selftests on a KASAN/lockdep/kmemleak" \
		"kernel (built and cached on first use)"
	@echo "make demo       deps, build, throughput demo in the VM"
	@echo "make bench      bench/run-core-bench.sh"
	@echo "make bench-worst  random worst-case sets at 100, 1k, 10k rules:" \
		"bench/results/worst.{md,csv} (WORST=\"-n 5\" passes options)"
	@echo "make bench-kernel  in-kernel benchmark in the VM (issue 5):" \
		"bench/results/kernel.{md,csv,png}, sets-throughput.md," \
		"states-throughput.md"
	@echo "make fuzz       libFuzzer targets, FUZZ_SECONDS (600) each"
	@echo "make install    module to /lib/modules/$(KVER)/extra, tools to" \
		"$(SBINDIR), man pages (DESTDIR, PREFIX honoured)"
	@echo "make bench-commit  commit time in the kernel: rules, restores;" \
		"listing and -C against iptables-legacy (VM)"
	@echo "make bench-real-world  restore of a real firewall against iptables (VM)"
	@echo "make bench-sets-kernel  sets in the VM: bytes per entry, load and" \
		"update time against ipset and nft: bench/results/sets-kernel.md;" \
		"then throughput: sets-throughput.md (two VM runs, about an hour)"
	@echo "make bench-states-kernel  keep-state against conntrack in the" \
		"VM: bench/results/states-throughput.md"
	@echo "make deb        Debian packages nf-hipac and nf-hipac-dkms" \
		"(./nf-hipac*_$(VERSION)_*.deb)"
	@echo "make check-packaging  the packages in a debootstrapped Debian" \
		"12 root, the service in the VM (PKG=--no-vm: without)"
	@echo "make style      checkpatch on kernel/ and include/uapi/, then sparse"
	@echo "make sparse     sparse (C=2) on the module"
	@echo "make clean"

.PHONY: all module module-debug user deps check check-user check-vm check-debug \
	demo fuzz \
	bench bench-worst bench-kernel bench-commit bench-real-world \
	bench-sets-kernel bench-states-kernel install uninstall deb check-packaging style \
	sparse 	clean help
