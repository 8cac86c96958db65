//go:build sched

#include "textflag.h"

// func getg() uintptr
TEXT ·getg(SB),NOSPLIT,$0-8
	MOVD g, R8
	MOVD R8, ret+0(FP)
	RET
