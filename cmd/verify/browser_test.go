package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/memverify/memverify/internal/benchcmp"
	"github.com/memverify/memverify/internal/goals"
)

// browsers are the names a Chromium goes by; Debian's package installs
// chromium.
var browsers = []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"}

// screenshotEnv names a file the browser test saves its screenshot of the
// report's first screen to (default: memverify-report.png in the temporary
// directory); reportEnv names a run directory whose report.html the test
// opens instead of the one it builds. Together they make the screenshot of
// a real run for the documentation:
//
//	MEMVERIFY_REPORT=reports/latest MEMVERIFY_SCREENSHOT=docs/report.png go test ./cmd/verify -run TestReportOpensInABrowser
//
// (paths relative to the module's root).
const (
	screenshotEnv = "MEMVERIFY_SCREENSHOT"
	reportEnv     = "MEMVERIFY_REPORT"
)

// TestReportOpensInABrowser opens report.html in headless Chromium, offline,
// and fails on any console error, on a request for anything outside the
// file, and on a plot that is missing or drawn empty; it saves a screenshot
// of the first screen.
func TestReportOpensInABrowser(t *testing.T) {
	browser := ""
	for _, name := range browsers {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		msg := fmt.Sprintf("no Chromium on this machine (looked for %s): install Debian's chromium package (apt-get install -y chromium) to run this test", strings.Join(browsers, ", "))
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; in CI the browser must be installed, or the page goes untested")
		}
		t.Skip(msg)
	}
	dir := os.Getenv(reportEnv)
	if dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(moduleRoot(), dir) // tests run in their package's directory
	}
	var want []string
	if dir == "" {
		dir = t.TempDir()
		r := reportWithEveryPlot(t)
		r.setDir(dir)
		captureStdout(t, func() {
			if err := r.write(dir); err != nil {
				t.Fatal(err)
			}
		})
		want = expectedPlots(r)
	}
	page, err := filepath.Abs(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "http://", "https://", "<link", "@import", "could not be drawn"} {
		if i := strings.Index(string(html), bad); i >= 0 && !(bad == "http://" && strings.Contains(string(html[max(0, i-40):i+40]), "xmlns")) {
			t.Errorf("report.html holds %q (a page that works offline has no script, no reference outside itself, and every plot): …%s…", bad, html[max(0, i-60):min(len(html), i+60)])
		}
	}
	shot, plots, problems := openInBrowser(t, browser, page)
	for _, p := range problems {
		t.Error(p)
	}
	for _, id := range want {
		if _, ok := plots[id]; !ok {
			t.Errorf("plot %s is missing from the page (have %v)", id, plots)
		}
	}
	for id, marks := range plots {
		if marks == 0 {
			t.Errorf("plot %s is drawn empty", id)
		}
	}
	out := os.Getenv(screenshotEnv)
	switch {
	case out == "":
		out = filepath.Join(os.TempDir(), "memverify-report.png")
	case !filepath.IsAbs(out):
		out = filepath.Join(moduleRoot(), out)
	}
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the first screen: %s", out)
}

// openInBrowser loads page and returns a screenshot of its first screen,
// each plot's count of drawn marks (paths) by id, and what went wrong.
func openInBrowser(t *testing.T, browser, page string) ([]byte, map[string]int, []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil { // starts the browser, bound to ctx
		t.Fatalf("starting %s: %v", browser, err)
	}
	var mu sync.Mutex
	var problems []string
	msgCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	msgs := chromedp.Console(msgCtx)
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				problems = append(problems, "console: "+m.String())
				mu.Unlock()
			}
		}
	}()
	tctx, tcancel := context.WithTimeout(ctx, 90*time.Second)
	defer tcancel()
	if err := chromedp.Do(tctx, chromedp.Navigate("file://"+page), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("opening %s: %v", page, err)
	}
	plots, err := chromedp.Run(tctx, chromedp.Evaluate[map[string]int](`(() => {
		const out = {};
		for (const f of document.querySelectorAll("figure")) {
			const svg = f.querySelector("svg");
			const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
			out[f.id] = box.width > 0 && box.height > 0 ? svg.querySelectorAll("path").length : 0;
		}
		return out;
	})()`))
	if err != nil {
		t.Fatalf("reading the plots: %v", err)
	}
	remote, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](`performance.getEntriesByType("resource").map(e => e.name).filter(n => !n.startsWith("file:") && !n.startsWith("data:"))`))
	if err != nil {
		t.Fatalf("reading the resources: %v", err)
	}
	for _, r := range remote {
		problems = append(problems, "the page fetched "+r+": it must work offline")
	}
	shot, err := chromedp.Run(tctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	time.Sleep(200 * time.Millisecond) // let late console messages arrive
	stop()
	<-done
	mu.Lock()
	defer mu.Unlock()
	return shot, plots, problems
}

// reportWithEveryPlot is a full report with benchmarks and goals too, so
// that the page holds a plot of every kind.
func reportWithEveryPlot(t *testing.T) *Report {
	t.Helper()
	r := fullReport(t)
	var lines []string
	for _, b := range []struct{ group, impl, ns string }{
		{"RefcountPair", "Model", "100"}, {"RefcountPair", "Sharded", "40"}, {"RefcountPair", "SyncMap", "80"},
		{"OverlapDense", "Model", "900"}, {"OverlapDense", "Exact", "9"},
	} {
		for i := range 6 {
			lines = append(lines, "Benchmark"+b.group+"/impl="+b.impl+"-2 1000000 "+b.ns+string(rune('0'+i))+" ns/op 0 B/op 0 allocs/op")
		}
	}
	rows, err := benchcmp.Parse(strings.NewReader(strings.Join(lines, "\n")+"\n"), "synthetic", "Model")
	if err != nil {
		t.Fatal(err)
	}
	r.Bench, r.Goals, r.BenchSource = rows, goals.Judge(rows), "a synthetic run"
	return r
}

// expectedPlots are the plots r's page must show.
func expectedPlots(r *Report) []string {
	out := []string{"time-to-kill", "suite-times", "overlap-missed", "overlap-false-alarms", "bench-refcount", "bench-overlap"}
	for _, d := range r.domainViews() {
		if len(d.Bugs) > 0 {
			out = append(out, "kill-matrix-"+d.Name)
		}
	}
	return out
}
