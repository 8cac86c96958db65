package refcount

import "testing"

// A share tree reads back what it was built with and every change made since,
// at sizes on both sides of each level's boundary, and a change leaves the
// tree it was made from as it was.
func TestShareTree(t *testing.T) {
	for _, n := range []int{1, 2, smallShares, smallShares + 1, shareFanout * shareFanout, shareFanout*shareFanout + 1, 5000} {
		want := make([]int64, n)
		for i := range want {
			want[i] = int64(i%7 + 1)
		}
		tr := newShareTree(n, func(i int) int64 { return want[i] })
		for i := 0; i < n; i += 3 {
			before := tr
			tr = tr.with(i, want[i]+10)
			if got := before.get(i); got != want[i] {
				t.Fatalf("n=%d: the change of share %d changed the old tree: %d, want %d", n, i, got, want[i])
			}
			want[i] += 10
		}
		for i, w := range want {
			if got := tr.get(i); got != w {
				t.Fatalf("n=%d: share %d = %d, want %d", n, i, got, w)
			}
		}
	}
	var empty shareTree
	if got := empty.get(3); got != 0 {
		t.Fatalf("the empty tree's share 3 = %d", got)
	}
	// Past the shares a tree was built with, within its span or beyond, a
	// read answers 0 (it does not wrap around to share 0).
	for _, n := range []int{11, smallShares + 1, 300} {
		tr := newShareTree(n, func(int) int64 { return 1 })
		for _, i := range []int{n, n + 5, 1 << 12, 1 << 20, -1} {
			if got := tr.get(i); got != 0 {
				t.Fatalf("n=%d: share %d past the end = %d, want 0", n, i, got)
			}
		}
	}
}
