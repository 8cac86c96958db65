package goals

import (
	"slices"

	"github.com/memverify/memverify/internal/benchcmp"
)

// JudgeCampaigns evaluates every goal on several campaigns: on their rows
// pooled, as Judge does, but a goal about one campaign's spread
// (Goal.perCampaign) on each campaign alone, its cases named after their
// campaign and its status the worst of theirs. Pooling campaigns narrows
// the interval of a median however its samples fall within each: a
// benchmark in two modes in every campaign has a wide interval in each and
// a narrow one over ten pooled. names names the campaigns, in order.
func JudgeCampaigns(pooled []benchcmp.Row, names []string, campaigns [][]benchcmp.Row) []Verdict {
	out := Judge(pooled)
	if len(campaigns) < 2 {
		return out
	}
	var each []run
	var named []string
	for i, c := range campaigns {
		// A file of instruction counts (callgrind's, one count a
		// benchmark) is read with the campaigns but has no samples to
		// spread.
		if slices.ContainsFunc(c, func(r benchcmp.Row) bool { return r.Unit == "sec/op" }) {
			each, named = append(each, index(c)), append(named, names[i])
		}
	}
	for i, g := range All {
		if !g.perCampaign || len(each) < 2 {
			continue
		}
		v := Verdict{Domain: g.Domain, Goal: g.Text, Pending: g.Pending}
		for k, r := range each {
			one := judge(g, r, named[k]+": ")
			v.Cases = append(v.Cases, one.Cases...)
			v.Missing = append(v.Missing, one.Missing...)
		}
		v.Status = status(v.Cases, v.Missing)
		out[i] = v
	}
	return out
}

// judge evaluates g on r, naming its cases and what is missing with prefix.
func judge(g Goal, r run, prefix string) Verdict {
	v := Verdict{Domain: g.Domain, Goal: g.Text, Pending: g.Pending}
	for _, c := range g.checks {
		j := c(r)
		for _, cs := range j.cases {
			cs.Name = prefix + cs.Name
			v.Cases = append(v.Cases, cs)
		}
		for _, m := range j.missing {
			// A reference shared by several implementations is missing
			// once.
			if m = prefix + m; !slices.Contains(v.Missing, m) {
				v.Missing = append(v.Missing, m)
			}
		}
	}
	v.Status = status(v.Cases, v.Missing)
	return v
}
