package goals

import (
	"strings"
	"testing"

	"github.com/memverify/memverify/internal/benchcmp"
)

// TestStableGoalReadsEachCampaign: the stability goal is missed by a
// campaign whose samples fall in two modes, however fast its median, and
// met by a tight one; pooled with tight campaigns a bimodal one still
// misses it (JudgeCampaigns), where one judgement of the pooled samples
// would narrow the interval and meet it.
func TestStableGoalReadsEachCampaign(t *testing.T) {
	const goal = "parallel pairs stable"
	campaign := func(lockFree ...string) []string {
		var out []string
		for i, x := range lockFree {
			sharded := []string{"10", "10.5", "11", "10.2", "10.8", "11.2", "10.4", "10.9"}[i%8]
			out = append(out,
				"BenchmarkSizeclassParallel/impl=LockFree-2 1000000 "+x+" ns/op",
				"BenchmarkSizeclassParallel/impl=Sharded-2 1000000 "+sharded+" ns/op",
				"BenchmarkSizeclassParallel/impl=syncPool-2 1000000 15 ns/op")
		}
		return out
	}
	tight := campaign("10", "10.5", "11", "10.2", "10.8", "11.2", "10.4", "10.9")
	bimodal := campaign("10", "24", "10.5", "25", "11", "23", "10.2", "26")
	if v := verdict(t, Judge(parseOnce(t, tight...)), goal); v.Status != Met {
		t.Errorf("tight: %q, want met: %+v", v.Status, v.Cases)
	}
	if v := verdict(t, Judge(parseOnce(t, bimodal...)), goal); v.Status != NotMet {
		t.Errorf("bimodal: %q, want not met: %+v", v.Status, v.Cases)
	}

	names := []string{"a", "b", "c", "d", "e"}
	runs := [][]string{tight, tight, bimodal, tight, tight}
	var pooled []string
	var each [][]string
	for _, r := range runs {
		pooled = append(pooled, r...)
		each = append(each, r)
	}
	if v := verdict(t, Judge(parseOnce(t, pooled...)), goal); v.Status != Met {
		t.Fatalf("pooled as one: %q; the test expects one judgement of the pool to hide the bimodal campaign", v.Status)
	}
	campaigns := make([][]benchcmp.Row, len(each))
	for i, r := range each {
		campaigns[i] = parseOnce(t, r...)
	}
	v := verdict(t, JudgeCampaigns(parseOnce(t, pooled...), names, campaigns), goal)
	if v.Status != NotMet {
		t.Fatalf("campaign by campaign: %q, want not met: %+v", v.Status, v.Cases)
	}
	for _, c := range v.Cases {
		if !c.Met && !strings.HasPrefix(c.Name, "c: ") {
			t.Errorf("case %q missed; only campaign c is bimodal", c.Name)
		}
	}
}
