// Package fuzz holds native Go fuzz targets, each differential against a
// domain's model: the fuzzer's bytes are decoded into a short op sequence
// (with github.com/google/gofuzz, over small bounded values so that the ops
// collide on the same objects), the ops run against the model and every
// implementation, and the first disagreement fails with the op trace.
//
// `go test ./fuzz` replays the seed corpora under testdata/fuzz; to search,
// run one target at a time: go test ./fuzz -run '^$' -fuzz '^FuzzRegistry$'.
package fuzz
