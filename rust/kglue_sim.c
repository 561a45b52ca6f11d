// SPDX-License-Identifier: GPL-2.0
/* The simulator build's copy of the glue, with the register-file lock. */
#define SKL_GLUE_SIM
#include "kglue.c"
