// Package report renders structured results as a page a person reads: a
// self-contained HTML document (inline CSS and SVG, no script, nothing
// fetched from a network) and the plots on it.
//
// It knows nothing of memverify's domains. A caller keeps its results as
// values, decides what to show, and hands this package plain shapes: a
// grid of levels (a heat map), samples by group (box plots), rates by
// category (grouped bars), ratios with intervals (a log-scale dot plot).
// Every plot is drawn with gonum.org/v1/plot and its SVG backend, never
// with SVG written by hand, and is returned as markup to place inline, so
// the page stays one file that works offline and from an artifact store.
//
// Each plot function returns an error, never panics, on input it cannot
// draw (no rows, a non-positive value on a log axis): a report with one
// plot missing must still be written, and says which and why.
//
// Files: plot.go (rendering a plot to inline SVG, shared styles), grid.go
// (heat maps), dist.go (distributions), bars.go (grouped bars),
// ratios.go (ratios with confidence intervals), page.go (the HTML page).
package report
