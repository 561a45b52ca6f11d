// SPDX-License-Identifier: GPL-2.0
/*
 * The simulator build's C: the glue and the series' helpers that both modules have, compiled
 * into this one too (an object belongs to one module).
 */
#include "kglue.c"
#include "kabi/helpers.c"
