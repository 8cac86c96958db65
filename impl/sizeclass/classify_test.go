package sizeclass

import (
	"testing"

	spec "github.com/memverify/memverify/model/sizeclass"
)

// TestSmallMatchesClassify checks the fast class lookup of the Alloc fast
// paths against classify around every class boundary and power of two.
func TestSmallMatchesClassify(t *testing.T) {
	configs := []spec.Config{
		spec.DefaultConfig(),
		{Alignment: 256, Classes: []int64{256, 768, 1024, 4096}},
		{Alignment: 1, Classes: []int64{1, 2, 3, 5, 8, 13}},
	}
	for _, cfg := range configs {
		c, err := newClasses(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var ns []int64
		for _, s := range cfg.Classes {
			ns = append(ns, s-1, s, s+1)
		}
		for k := range 63 {
			ns = append(ns, 1<<k-1, 1<<k, 1<<k+1)
		}
		ns = append(ns, -1, 0, 1<<63-1)
		for _, n := range ns {
			got := c.small(n)
			want := -1
			if n > 0 {
				if _, class, err := c.classify(n); err == nil {
					want = class
				}
			}
			if got != want {
				t.Errorf("config %v: small(%d) = %d, classify says %d", cfg.Classes, n, got, want)
			}
		}
	}
}
