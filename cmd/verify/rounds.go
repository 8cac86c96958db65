package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// benchRounds measures the benchmarks of package pkg (a directory below
// root) in rounds: the package's test binary is built once and run count
// times with -test.count 1, each run taking one sample of every benchmark
// that matches pattern. The output of all rounds is returned, concatenated;
// progress goes to log.
//
// go test -count N takes a benchmark's N samples back to back and the next
// benchmark's after them. On a shared host whose speed drifts over seconds
// and minutes, two benchmarks measured minutes apart (the model and an
// implementation, or 1k and 100k live blocks) are then compared at two
// moments of the host as much as for their code: on these VMs a whole
// block of samples can land in a slow phase and its neighbour in a fast
// one. In rounds, every benchmark's samples are spread over the whole
// campaign, so benchmarks compared with each other see the same mix of
// moments, and a median over the rounds weighs them alike.
func benchRounds(root, pkg, pattern, benchtime string, count int, log io.Writer) ([]byte, error) {
	return benchRoundsWith(root, pkg, pattern, benchtime, count, log, nil)
}

// benchRoundsWith is benchRounds with a peer (if not nil) measured in
// every round after the package's benchmarks, its lines part of the
// round's output (numpy_peer.go).
func benchRoundsWith(root, pkg, pattern, benchtime string, count int, log io.Writer, peer roundPeer) ([]byte, error) {
	if count < 1 {
		return nil, fmt.Errorf("-count %d: need at least one round", count)
	}
	dir, err := os.MkdirTemp("", "verify-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "bench.test")
	build := exec.Command("go", "test", "-c", "-o", bin, "./"+pkg)
	build.Dir, build.Stdout, build.Stderr = root, log, log
	fmt.Fprintf(log, "go %s\n", joinArgs(build.Args[1:]))
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("building the benchmarks: %w", err)
	}
	if peer != nil {
		if err := peer.prepare(bin, filepath.Join(root, pkg), dir, log); err != nil {
			return nil, err
		}
	}
	var out bytes.Buffer
	start := time.Now()
	for r := 1; r <= count; r++ {
		args := []string{"-test.run", "^$", "-test.bench", pattern, "-test.benchmem",
			"-test.count", "1", "-test.benchtime", benchtime}
		fmt.Fprintf(log, "round %d of %d %s, in %s/: %s %s\n", r, count, roundsETA(time.Since(start), r-1, count), pkg, bin, joinArgs(args))
		cmd := exec.Command(bin, args...)
		// A test binary runs in its package's directory under go test.
		cmd.Dir = filepath.Join(root, pkg)
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, log), log
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("round %d: %w", r, err)
		}
		if peer != nil {
			if err := peer.round(cmd.Stdout, log); err != nil {
				return nil, fmt.Errorf("round %d: %w", r, err)
			}
		}
	}
	return out.Bytes(), nil
}

// roundsETA is the time so far and, once a round is done, the time left,
// at the same pace: "(1m2s, about 2m5s left)".
func roundsETA(elapsed time.Duration, done, count int) string {
	if done == 0 {
		return "(first round)"
	}
	left := elapsed / time.Duration(done) * time.Duration(count-done)
	return fmt.Sprintf("(%v, about %v left)", elapsed.Round(time.Second), left.Round(time.Second))
}
