/* SPDX-License-Identifier: GPL-2.0 */
#include "task_stack.h"
