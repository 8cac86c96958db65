package refcount

import "unsafe"

func uintptrOf(s *shard) uintptr { return uintptr(unsafe.Pointer(s)) }
