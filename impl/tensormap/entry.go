package tensormap

import (
	spec "github.com/memverify/memverify/model/tensormap"
)

// none marks the end of a chain, the head's missing predecessor and the
// layout of an empty view.
const none = -1

// unlinked is the prev of an entry that is in no bucket chain.
const unlinked = -2

// A pool slot is split in two by who reads it.
//
// node (32 bytes, two per cache line) is everything a chain walk and the
// solver read: storage, task, lowest byte, the link to the next entry, and
// the view's layout (layouts.go), whose extent gives the highest byte and
// whose dims with the lowest byte give the view. For 128 Ki slots the nodes
// are 4 MiB, and the layouts of a real pool a few lines. Most candidates
// are decided from the node and the layout's extent: a storage or bounds
// mismatch rejects one, and a shared lowest or highest byte accepts one (a
// non-empty view touches both), which settles the same view written and
// read.
//
// link (8 bytes) holds the back link and the per-task chain, which only
// Insert, Retire and unlinking read.
type node struct {
	storage spec.Storage
	task    spec.Task
	lo      int64 // the view's lowest byte (non-empty views only)
	next    int32 // older neighbour in the bucket chain, none at the tail
	layout  int32 // the view's layout, none for an empty view
}

type link struct {
	prev     int32 // newer neighbour, none at the head, unlinked if in no chain
	nextTask int32 // older entry of the same task, none at the end
}
