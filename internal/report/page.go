package report

import (
	"fmt"
	"html/template"
	"image/color"
	"io"
)

// Status colours a cell, a tile or the verdict: one of the constants below,
// or "" for none.
type Status string

const (
	StatusPass Status = "pass" // met, passed, killed first
	StatusFair Status = "fair" // killed, but not first
	StatusFail Status = "fail" // missed, failed, survived
	StatusWarn Status = "warn" // partly measured, not judged, timed out
	StatusNone Status = ""
)

// Page is one report as a person reads it: the verdict and the figures
// that explain it first, then sections.
type Page struct {
	Title    string
	Verdict  Status   // the overall verdict: pass or fail
	Headline string   // why, in one line
	Reasons  []string // each failure kind, one line each
	Facts    []Fact   // commit, machine, start, duration, budget
	Tiles    []Tile   // the counts that matter most
	Sections []Section
}

// Fact is one line of the run's description.
type Fact struct{ Name, Value string }

// Tile is one headline count.
type Tile struct {
	Label, Value string
	Status       Status
}

// Section is a part of the page with an anchor of its own.
type Section struct {
	ID, Title string
	Blocks    []Block
}

// Block is one element of a section; exactly one of its fields is set.
type Block struct {
	Text    string  // a paragraph
	Code    string  // preformatted text
	Figure  *Figure // a plot
	Table   *Table
	Details *Details // a collapsed block
	Heading string   // a sub-heading
}

// Details is a block the reader opens on demand.
type Details struct {
	Summary string
	Blocks  []Block
}

// Table is a table of cells; Numeric columns are right-aligned.
type Table struct {
	Head    []string
	Numeric []bool
	Rows    [][]Cell
}

// Cell is one table cell: text, optionally a link, a status colour, or
// set in code type.
type Cell struct {
	Text   string
	Href   string
	Status Status
	Code   bool
	Title  string // shown on hover
}

// Write renders p as one HTML document: inline CSS and SVG, no script and
// no reference to anything outside the file, so it reads the same offline,
// from a CI artifact, or attached to a message.
func Write(w io.Writer, p Page) error {
	if err := pageTemplate.Execute(w, p); err != nil {
		return fmt.Errorf("rendering the page: %w", err)
	}
	return nil
}

// css renders a colour for the stylesheet.
func css(c color.Color) template.CSS {
	r, g, b, _ := c.RGBA()
	return template.CSS(fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8))
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"css":     css,
	"good":    func() color.Color { return Good },
	"fair":    func() color.Color { return Fair },
	"bad":     func() color.Color { return Bad },
	"warn":    func() color.Color { return Warn },
	"numeric": func(t *Table, i int) bool { return i < len(t.Numeric) && t.Numeric[i] },
}).Parse(pageHTML))
