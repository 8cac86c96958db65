package gate

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// part is one dump of a callgrind profile: the instructions executed
// between two dumps, and the inclusive cost of the calls made into each
// function in that interval.
type part struct {
	total uint64
	// into holds, for each called function, the inclusive cost of every
	// call made to it in this part (callgrind's "calls=" records).
	into map[string]uint64
}

// parseCallgrind reads a callgrind output file written with
// --combine-dumps=yes: one part per dump, in order. It reads only what the
// gate needs: each part's total of the first event (Ir, instructions), and
// the inclusive costs of calls. Names may be compressed ("(12) name" the
// first time, "(12)" after); positions may be relative.
func parseCallgrind(r io.Reader) ([]part, error) {
	var parts []part
	var cur *part
	names := map[string]string{} // compressed id → function name
	var callee string
	inCall := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		switch {
		case s == "" || s[0] == '#':
			continue
		case strings.HasPrefix(s, "part:"):
			parts = append(parts, part{into: map[string]uint64{}})
			cur = &parts[len(parts)-1]
			continue
		case strings.HasPrefix(s, "cfn="):
			callee = resolveName(names, strings.TrimPrefix(s, "cfn="))
			continue
		case strings.HasPrefix(s, "fn="):
			resolveName(names, strings.TrimPrefix(s, "fn="))
			continue
		case strings.HasPrefix(s, "calls="):
			inCall = true
			continue
		case strings.HasPrefix(s, "totals:") || strings.HasPrefix(s, "summary:"):
			if cur == nil { // a file of one dump has no "part:" line
				parts = append(parts, part{into: map[string]uint64{}})
				cur = &parts[len(parts)-1]
			}
			if strings.HasPrefix(s, "totals:") || cur.total == 0 {
				n, err := firstCost(s[strings.IndexByte(s, ':')+1:])
				if err != nil {
					return nil, fmt.Errorf("callgrind output line %d: %v", line, err)
				}
				cur.total = n
			}
			continue
		}
		c := s[0]
		isCost := c >= '0' && c <= '9' || c == '+' || c == '-' || c == '*'
		if !isCost {
			continue // ob=, fl=, fi=, fe=, cob=, cfl=, headers
		}
		if inCall {
			inCall = false
			if cur == nil {
				parts = append(parts, part{into: map[string]uint64{}})
				cur = &parts[len(parts)-1]
			}
			fields := strings.Fields(s)
			if len(fields) < 2 {
				continue // a call with no cost recorded
			}
			n, err := strconv.ParseUint(fields[1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("callgrind output line %d: cost %q: %v", line, fields[1], err)
			}
			cur.into[callee] += n
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return parts, nil
}

// resolveName reads a possibly compressed name, "(id) name" or "(id)", and
// returns the name.
func resolveName(names map[string]string, s string) string {
	if !strings.HasPrefix(s, "(") {
		return s
	}
	end := strings.IndexByte(s, ')')
	if end < 0 {
		return s
	}
	id, rest := s[:end+1], strings.TrimSpace(s[end+1:])
	if rest != "" {
		names[id] = rest
		return rest
	}
	return names[id]
}

// firstCost reads the first number of a list of costs.
func firstCost(s string) (uint64, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0, fmt.Errorf("no cost in %q", s)
	}
	return strconv.ParseUint(f[0], 10, 64)
}
