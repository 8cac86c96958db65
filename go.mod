module github.com/memverify/memverify

go 1.26.0

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/google/gofuzz v1.2.0
	github.com/montanaflynn/stats v0.14.0
	github.com/puzpuzpuz/xsync/v4 v4.5.0
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da
	pgregory.net/rapid v1.3.0
)

require github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
