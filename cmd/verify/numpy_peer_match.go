package main

// The -bench pattern applied to the lines a peer prints: the peer measures
// what go test would have selected had its lines been benchmarks of the
// package.

import (
	"fmt"
	"regexp"
	"strings"
)

// benchMatcher matches a benchmark's full name as go test's -bench does:
// the pattern is split at each / outside brackets and parentheses, and
// each part must match (unanchored) the name's level of the same depth;
// levels deeper than the pattern match anything.
func benchMatcher(pattern string) (func(string) bool, error) {
	var res []*regexp.Regexp
	for _, part := range splitPattern(pattern) {
		re, err := regexp.Compile(part)
		if err != nil {
			return nil, fmt.Errorf("-bench %q: %w", pattern, err)
		}
		res = append(res, re)
	}
	return func(name string) bool {
		levels := strings.Split(name, "/")
		if len(levels) < len(res) {
			return false
		}
		for i, re := range res {
			if !re.MatchString(levels[i]) {
				return false
			}
		}
		return true
	}, nil
}

// splitPattern splits a -bench pattern at each / outside [] and (), as
// the testing package does.
func splitPattern(pattern string) []string {
	var parts []string
	cs, cp, start := 0, 0, 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '[':
			cs++
		case ']':
			if cs--; cs < 0 {
				cs = 0
			}
		case '(':
			if cs == 0 {
				cp++
			}
		case ')':
			if cs == 0 {
				cp--
			}
		case '\\':
			i++
		case '/':
			if cs == 0 && cp == 0 {
				parts = append(parts, pattern[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, pattern[start:])
}
