package sched

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// Kind says what a step of a schedule was.
type Kind uint8

const (
	KindPoint  Kind = iota // reached Point(What)
	KindYield              // called Yield
	KindSpawn              // started the goroutine named What
	KindLock               // is about to take the lock What ("m1", "m2 (read)")
	KindBlock              // waits for the lock What, held by another goroutine
	KindUnlock             // released the lock What
	KindCall               // began the operation What (Scheduler.Call)
	KindReturn             // ended its operation with the result What (Scheduler.Return)
	KindWait               // waits for every other goroutine to end (Scheduler.Wait)
	KindExit               // ended
	KindFail               // failed: What says how
)

var kindNames = [...]string{"point", "yield", "spawn", "lock", "block", "unlock", "call", "return", "wait", "exit", "fail"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Step is one event of a run, in the order the run made them.
type Step struct {
	G    int // the goroutine: 0 runs the body, the others are numbered as they start
	Kind Kind
	What string
	// Preempted is set on the first step of a goroutine that got control by
	// preempting one that could have gone on.
	Preempted bool
}

// Schedule is the record of one run: who ran which step, in order. Two runs
// with the same draws have equal schedules; Divergence finds where two differ.
type Schedule struct {
	Strategy    string   // how the run was scheduled
	Goroutines  []string // names, indexed by Step.G
	Steps       []Step
	Decisions   int // scheduling decisions that had more than one runnable goroutine
	Preemptions int
}

// Divergence returns the index of the first step at which s and o differ
// (len of the shorter when one is a prefix of the other), or −1 if they are
// the same schedule.
func (s Schedule) Divergence(o Schedule) int {
	n := min(len(s.Steps), len(o.Steps))
	for i := 0; i < n; i++ {
		if s.Steps[i] != o.Steps[i] || s.name(s.Steps[i].G) != o.name(o.Steps[i].G) {
			return i
		}
	}
	if len(s.Steps) != len(o.Steps) {
		return n
	}
	return -1
}

func (s Schedule) name(g int) string {
	if g >= 0 && g < len(s.Goroutines) {
		return s.Goroutines[g]
	}
	return fmt.Sprintf("g%d", g)
}

// String is the one-line summary that heads a timeline.
func (s Schedule) String() string {
	return fmt.Sprintf("%s, %d goroutines, %d steps, %d decisions, %d preemptions",
		s.Strategy, len(s.Goroutines), len(s.Steps), s.Decisions, s.Preemptions)
}

// Timeline prints the schedule with one column per goroutine and one row per
// step, so the rows between two points of a column are the code that
// goroutine ran between them. '>' marks a row reached by preemption; a run of
// identical steps (a spin-wait) prints once with its count.
func (s Schedule) Timeline() string {
	rows := s.rows()
	width := make([]int, len(s.Goroutines))
	for g := range width {
		width[g] = utf8.RuneCountInString(s.name(g))
	}
	for _, r := range rows {
		if r.g < len(width) {
			width[r.g] = max(width[r.g], min(utf8.RuneCountInString(r.text), maxColumn))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "interleaving (%s; '>' marks a preemption):\n", s)
	header := make([]string, len(s.Goroutines))
	for g := range header {
		header[g] = s.name(g)
	}
	writeRow(&b, "  step ", header, width)
	for i, r := range rows {
		if len(rows) > maxRows && i == headRows {
			fmt.Fprintf(&b, "  ... %d rows left out ...\n", len(rows)-maxRows)
		}
		if len(rows) > maxRows && i >= headRows && i < len(rows)-(maxRows-headRows) {
			continue
		}
		cells := make([]string, len(width))
		if r.g < len(cells) {
			cells[r.g] = clip(r.text)
		}
		mark := " "
		if r.preempted {
			mark = ">"
		}
		writeRow(&b, fmt.Sprintf("%5d%s ", r.step, mark), cells, width)
	}
	return b.String()
}

const (
	maxColumn = 36  // a longer cell is cut
	maxRows   = 400 // a longer timeline keeps its head and its tail
	headRows  = 40
)

type row struct {
	step      int // 1-based index of the row's first step
	g         int
	text      string
	preempted bool
}

// rows turns steps into printed rows, folding repeats into one row.
func (s Schedule) rows() []row {
	var rows []row
	for i := 0; i < len(s.Steps); {
		st := s.Steps[i]
		j := i + 1
		for j < len(s.Steps) && s.Steps[j] == (Step{G: st.G, Kind: st.Kind, What: st.What}) && st.Kind != KindCall && st.Kind != KindReturn {
			j++
		}
		text := st.text()
		if j-i > 1 {
			text = fmt.Sprintf("%s ×%d", text, j-i)
		}
		rows = append(rows, row{step: i + 1, g: st.G, text: text, preempted: st.Preempted})
		i = j
	}
	return rows
}

func (st Step) text() string {
	switch st.Kind {
	case KindPoint:
		return st.What
	case KindSpawn:
		return "go " + st.What
	case KindBlock:
		return "blocked on " + st.What
	case KindReturn:
		return "→ " + st.What
	case KindYield, KindWait, KindExit:
		return st.Kind.String()
	case KindFail:
		return strings.TrimSpace("FAIL " + st.What)
	}
	return st.Kind.String() + " " + st.What
}

func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxColumn {
		return s
	}
	r := []rune(s)
	return string(r[:maxColumn-1]) + "…"
}

func writeRow(b *strings.Builder, lead string, cells []string, width []int) {
	var line strings.Builder
	line.WriteString(lead)
	for g, c := range cells {
		if g > 0 {
			line.WriteString(" | ")
		}
		line.WriteString(c)
		line.WriteString(strings.Repeat(" ", width[g]-utf8.RuneCountInString(c)))
	}
	b.WriteString(strings.TrimRight(line.String(), " "))
	b.WriteString("\n")
}

// failure is how a run failed: what to say, the schedule so far, and, when
// the failure came as a panic in a goroutine of the run, the value to panic
// with again in the test's goroutine (rapid reads its own failures that way).
type failure struct {
	msg      string
	repanic  any
	hasPanic bool
	quiet    bool // rapid's own panic from a draw: pass it on, print nothing
	goexit   bool // a goroutine of the run called runtime.Goexit (t.FailNow)
}

// reportFailure fails t with f: the message, the timeline, the command that
// replays it. A panic is passed on as the same value, so that rapid treats
// its own failures (and its out-of-data panics) as usual.
func reportFailure(t rapid.TB, f *failure, rec Schedule, repro string) {
	t.Helper()
	if f.quiet {
		panic(f.repanic)
	}
	text := report(f.msg, rec, repro)
	if f.hasPanic {
		t.Logf("%s", text)
		panic(f.repanic)
	}
	t.Fatalf("%s", text)
}

// report formats a failure: the message, the timeline, the repro command.
func report(msg string, s Schedule, repro string) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(msg, "\n"))
	b.WriteString("\n")
	b.WriteString(s.Timeline())
	b.WriteString("reproduce: ")
	b.WriteString(repro)
	b.WriteString("\n")
	return b.String()
}

// headline shortens a failure message for its cell in the timeline (the
// whole message heads the report): the words before its colon, if few.
func headline(msg string) string {
	if i := strings.IndexAny(msg, ":\n"); i > 0 && i <= 24 && msg[i] == ':' {
		return msg[:i]
	}
	return ""
}
