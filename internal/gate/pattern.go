package gate

import (
	"regexp"
	"sort"
	"strings"
)

// go test matches -bench level by level: the pattern is split at every
// slash outside brackets and parentheses, and the k-th piece must match the
// k-th element of a benchmark's name. A set of benchmarks can therefore be
// selected exactly only when it is a product: every combination of its
// elements, level by level, that names a benchmark at all is in the set.
// exactPatterns splits a set into such products, so that each callgrind
// process runs the benchmarks it is meant to and no other (a stray model
// benchmark at a million iterations would run for hours).

// splitPattern splits a go test -bench pattern into its levels, as the
// testing package does: at slashes outside [...] and (...).
func splitPattern(p string) []string {
	var out []string
	depth, class, start := 0, false, 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\' && i+1 < len(p):
			i++
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '/' && depth == 0:
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return append(out, p[start:])
}

// elements splits a benchmark's full name, as go test prints it without a
// -GOMAXPROCS suffix, into the elements the levels of a pattern match.
func elements(name string) []string { return strings.Split(name, "/") }

// exactPatterns returns -bench patterns that together select exactly the
// benchmarks of want among all, each pattern a product of anchored
// alternations. Names are full benchmark names (BenchmarkX/a=1/impl=Y).
func exactPatterns(want, all []string) []string {
	var paths [][]string
	for _, n := range want {
		paths = append(paths, elements(n))
	}
	var every [][]string
	for _, n := range all {
		every = append(every, elements(n))
	}
	var out []string
	partition(paths, every, 0, &out)
	sort.Strings(out)
	return out
}

// partition emits one pattern for paths if it selects nothing else from
// every, and otherwise splits paths by their element at level and tries
// each part.
func partition(paths, every [][]string, level int, out *[]string) {
	if len(paths) == 0 {
		return
	}
	alts := alternatives(paths)
	if selectsOnly(alts, paths, every) {
		*out = append(*out, patternOf(alts))
		return
	}
	byElem := map[string][][]string{}
	var keys []string
	for _, p := range paths {
		k := ""
		if level < len(p) {
			k = p[level]
		}
		if _, ok := byElem[k]; !ok {
			keys = append(keys, k)
		}
		byElem[k] = append(byElem[k], p)
	}
	if len(keys) == 1 && level >= maxLen(paths) {
		// Nothing left to split on: the paths are one benchmark, named
		// in full, and still select more; the name's own pattern is
		// the best there is.
		*out = append(*out, patternOf(alts))
		return
	}
	for _, k := range keys {
		partition(byElem[k], every, level+1, out)
	}
}

// alternatives collects, level by level, the elements of paths.
func alternatives(paths [][]string) [][]string {
	alts := make([][]string, maxLen(paths))
	for _, p := range paths {
		for i, e := range p {
			if !contains(alts[i], e) {
				alts[i] = append(alts[i], e)
			}
		}
	}
	return alts
}

// selectsOnly reports whether the pattern of alts selects from every no
// benchmark outside paths. A shorter benchmark whose elements all match
// counts as selected: go test runs it once (run1) on the way down; so a
// path of paths shorter than the pattern is not selected as it should be.
func selectsOnly(alts [][]string, paths, every [][]string) bool {
	for _, p := range paths {
		if len(p) < len(alts) {
			return false // p would run once on the way down, never measured
		}
	}
	for _, e := range every {
		match := true
		for i := 0; i < len(alts) && i < len(e); i++ {
			if !contains(alts[i], e[i]) {
				match = false
				break
			}
		}
		if match && !containsPath(paths, e) {
			return false
		}
	}
	return true
}

// patternOf renders alts as a -bench pattern of anchored alternations.
func patternOf(alts [][]string) string {
	levels := make([]string, len(alts))
	for i, a := range alts {
		quoted := make([]string, len(a))
		for j, e := range a {
			quoted[j] = regexp.QuoteMeta(e)
		}
		sort.Strings(quoted)
		if len(quoted) == 1 {
			levels[i] = "^" + quoted[0] + "$"
		} else {
			levels[i] = "^(" + strings.Join(quoted, "|") + ")$"
		}
	}
	return strings.Join(levels, "/")
}

func maxLen(paths [][]string) int {
	n := 0
	for _, p := range paths {
		n = max(n, len(p))
	}
	return n
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsPath(paths [][]string, p []string) bool {
	for _, q := range paths {
		if strings.Join(q, "/") == strings.Join(p, "/") {
			return true
		}
	}
	return false
}
