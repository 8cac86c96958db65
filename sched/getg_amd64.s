//go:build sched

#include "textflag.h"

// func getg() uintptr
TEXT ·getg(SB),NOSPLIT,$0-8
	MOVQ (TLS), R8
	MOVQ R8, ret+0(FP)
	RET
