// SPDX-License-Identifier: GPL-2.0
/* The simulator build's copy of the glue (without the production CPU table). */
#define SKL_GLUE_SIM
#include "kglue.c"
#include "kabi/helpers.c"
