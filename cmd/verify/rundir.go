package main

// One directory per run. Every command that writes a report writes it to a
// directory of its own under -out, named for the command and its start in
// UTC (all-20261127T190450Z, mutants-shard2of3-…), so that no command ever
// overwrites another's report. <out>/latest is a symbolic link to the
// newest full run: an unfiltered, unsharded `all` (or the merge of all its
// shards) that passed. A narrowed, sharded or failed run leaves it alone, so
// that latest always holds a complete picture of a passing build.
//
// The directory is made before any work starts: an -out that cannot be
// written is found in milliseconds, not after minutes of suites.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// latestName is the link, under -out, to the newest full run.
const latestName = "latest"

// runStamp is the UTC time in a run directory's name: sortable, and free
// of characters a file system or a shell would trip on.
const runStamp = "20060102T150405Z"

// makeRunDir validates out and creates the run directory of command cmd
// (with tag, e.g. "shard2of3", in its name when set) under it. out must be
// the directory that holds run directories, not one of them: given a run
// directory, or the latest link (as -out reports/latest was used before
// runs had directories of their own), it is refused, since runs nested in
// runs would be found by nothing.
func makeRunDir(out, cmd, tag string, started time.Time) (string, error) {
	if _, err := os.Stat(filepath.Join(out, "report.json")); err == nil || filepath.Base(filepath.Clean(out)) == latestName {
		return "", fmt.Errorf("-out %s is a run's directory; give the directory that holds the runs (by default reports)", out)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("-out %s: %w", out, err)
	}
	base := cmd
	if tag != "" {
		base += "-" + tag
	}
	base += "-" + started.UTC().Format(runStamp)
	for i := 1; i < 1000; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i) // two runs started in one second
		}
		dir := filepath.Join(out, name)
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, probeWrite(dir)
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("-out %s: %w", out, err)
		}
	}
	return "", fmt.Errorf("-out %s: a thousand runs named %s already", out, base)
}

// probeWrite writes and removes a file in dir: a directory can be made where
// its files cannot be written (a full disk, a read-only bind mount).
func probeWrite(dir string) error {
	p := filepath.Join(dir, ".probe")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		return fmt.Errorf("-out: cannot write in %s: %w", dir, err)
	}
	return os.Remove(p)
}

// pointLatest makes <out>/latest name run directory dir, replacing the
// link in one step (a new link renamed over the old), so that a reader
// never finds it missing. A real directory in its place, left by a version
// of verify that wrote reports there, is kept under a name of its own.
func pointLatest(dir string) error {
	out, name := filepath.Dir(dir), filepath.Base(dir)
	link := filepath.Join(out, latestName)
	if fi, err := os.Lstat(link); err == nil && fi.IsDir() {
		old := filepath.Join(out, "latest-before-"+fi.ModTime().UTC().Format(runStamp))
		if err := os.Rename(link, old); err != nil {
			return fmt.Errorf("moving the old %s aside: %w", link, err)
		}
		fmt.Printf("%s was a directory; it is now %s\n", link, old)
	}
	tmp := filepath.Join(out, fmt.Sprintf(".latest-%d", os.Getpid()))
	os.Remove(tmp)
	if err := os.Symlink(name, tmp); err != nil {
		return fmt.Errorf("linking %s: %w", link, err)
	}
	if err := os.Rename(tmp, link); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("linking %s: %w", link, err)
	}
	return nil
}
