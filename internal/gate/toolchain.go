package gate

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// Toolchain is what an instruction count depends on besides the code: the
// Go release that compiled the binary, the valgrind that counted, and the
// amd64 microarchitecture level the compiler targeted (GOAMD64: v3 emits
// instructions v1 does not have). Counts taken with different toolchains
// differ for reasons that are not the change's, so they are never compared.
type Toolchain struct {
	Go       string `json:"go"`
	Valgrind string `json:"valgrind,omitempty"`
	GOAMD64  string `json:"goamd64,omitempty"`
}

// Configuration keys of a saved run (benchfmt: a lower-case key, a colon,
// the value), written before its results.
const (
	keyGo       = "instr-go"
	keyValgrind = "instr-valgrind"
	keyGOAMD64  = "instr-goamd64"
)

// String renders the toolchain as a report shows it.
func (t Toolchain) String() string {
	s := t.Go
	if t.Valgrind != "" {
		s += ", " + t.Valgrind
	}
	if t.GOAMD64 != "" {
		s += ", GOAMD64=" + t.GOAMD64
	}
	return s
}

// Mismatch says how t and u differ, "" when they do not.
func (t Toolchain) Mismatch(u Toolchain) string {
	var d []string
	for _, f := range []struct{ name, a, b string }{
		{"Go", t.Go, u.Go}, {"valgrind", t.Valgrind, u.Valgrind}, {"GOAMD64", t.GOAMD64, u.GOAMD64},
	} {
		if f.a != f.b {
			d = append(d, fmt.Sprintf("%s %q against %q", f.name, f.a, f.b))
		}
	}
	return strings.Join(d, ", ")
}

// LocalToolchain reads the toolchain of this machine: `go env GOVERSION
// GOAMD64` in dir (whose go.mod may select another Go release) and
// `valgrind --version`. A missing valgrind leaves its field empty; the
// caller decides whether that is an error.
func LocalToolchain(ctx context.Context, dir, valgrind string) (Toolchain, error) {
	var t Toolchain
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION", "GOAMD64")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return t, fmt.Errorf("go env GOVERSION GOAMD64: %w", err)
	}
	f := strings.Fields(string(out))
	if len(f) > 0 {
		t.Go = f[0]
	}
	if len(f) > 1 {
		t.GOAMD64 = f[1]
	}
	if valgrind == "" {
		valgrind = "valgrind"
	}
	if out, err := exec.CommandContext(ctx, valgrind, "--version").Output(); err == nil {
		t.Valgrind = strings.TrimSpace(string(out))
	}
	return t, nil
}

// configLines renders t as the configuration lines of a saved run.
func (t Toolchain) configLines() string {
	var b strings.Builder
	for _, kv := range [][2]string{{keyGo, t.Go}, {keyValgrind, t.Valgrind}, {keyGOAMD64, t.GOAMD64}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, "%s: %s\n", kv[0], kv[1])
		}
	}
	return b.String()
}
