package cabi

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed include/memverify/*.h
var headers embed.FS

// Headers returns the C ABI's headers: memverify/common.h and one header
// per domain, as the files a C or C++ build includes (-I<dir> with the
// headers under <dir>/memverify).
func Headers() fs.FS {
	sub, err := fs.Sub(headers, "include")
	if err != nil {
		panic(err) // the embedded tree always has include/
	}
	return sub
}

// WriteHeaders writes the headers under dir/memverify, so that a build
// with -I dir finds them.
func WriteHeaders(dir string) error {
	return fs.WalkDir(Headers(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		out := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := fs.ReadFile(Headers(), path)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
}
