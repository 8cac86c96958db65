package draw_test

import (
	"testing"

	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/props"
	"pgregory.net/rapid"
)

// TestRarelyShrinksToFalse: a property that fails whatever it draws is
// shrunk to the draw rapid replays last, which must be the simple branch.
func TestRarelyShrinksToFalse(t *testing.T) {
	for _, c := range []struct {
		name string
		draw func(*rapid.T) bool
		want bool
	}{
		{"Rarely", func(t *rapid.T) bool { return draw.Rarely(t, 4, "rare") }, false},
		{"Often", func(t *rapid.T) bool { return draw.Often(t, 4, "often") }, true},
	} {
		var last bool
		res := props.Run(c.name, func(tb rapid.TB) {
			rapid.Check(tb, func(t *rapid.T) {
				last = c.draw(t)
				t.Fatalf("fails on every draw")
			})
		})
		if res.Outcome != props.Failed {
			t.Fatalf("%s: the property did not fail: %s", c.name, res.Output)
		}
		if last != c.want {
			t.Errorf("%s shrank to %v, want %v", c.name, last, c.want)
		}
	}
}

// TestRarelyIsRare: about one draw in n is true.
func TestRarelyIsRare(t *testing.T) {
	gen := rapid.Custom(func(t *rapid.T) bool { return draw.Rarely(t, 4, "rare") })
	hits := 0
	for i := 0; i < 400; i++ {
		if gen.Example(i) {
			hits++
		}
	}
	if hits < 40 || hits > 200 {
		t.Errorf("Rarely(4) was true %d times in 400 draws, want about 100", hits)
	}
}
