#!/bin/bash -eu
# Builds every native Go fuzz target of package fuzz as a libFuzzer binary in
# $OUT, named after its function, with its seed corpus beside it as
# <Target>_seed_corpus.zip (from fuzz/testdata/fuzz). ClusterFuzzLite runs this
# in .clusterfuzzlite/Dockerfile's image; .ci/cflite runs it outside Docker,
# with clang and a compile_native_go_fuzzer of its own, on every CI run.
#
# compile_native_go_fuzzer hands the target to go-118-fuzz-build, which swaps
# the harness file's "testing" for its own package, builds a c-archive whose
# LLVMFuzzerTestOneInput calls the target, and links it with
# $LIB_FUZZING_ENGINE. The tool and its testing package are pinned to one
# version, the one .ci/cflite proves, rather than whatever the image carries.
fuzzbuild=github.com/AdamKorcz/go-118-fuzz-build
fuzzbuild_version=v0.0.0-20250520111509-a70c2aa677fa
go install "$fuzzbuild@$fuzzbuild_version"
go get "$fuzzbuild/testing@$fuzzbuild_version"

# One line per target: go test -list '^Fuzz' ./fuzz lists them, and .ci/cflite
# fails when one has no line here.
pkg=github.com/memverify/memverify/fuzz
compile_native_go_fuzzer "$pkg" FuzzFreeList FuzzFreeList
compile_native_go_fuzzer "$pkg" FuzzBanks FuzzBanks
compile_native_go_fuzzer "$pkg" FuzzOverlap FuzzOverlap
compile_native_go_fuzzer "$pkg" FuzzRegistry FuzzRegistry
compile_native_go_fuzzer "$pkg" FuzzPool FuzzPool
compile_native_go_fuzzer "$pkg" FuzzTensorMap FuzzTensorMap

go run .clusterfuzzlite/seedcorpus.go -out "$OUT" fuzz/testdata/fuzz
