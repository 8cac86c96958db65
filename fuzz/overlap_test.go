package fuzz

import (
	"encoding/binary"
	"math"
	"testing"

	gofuzz "github.com/google/gofuzz"

	impl "github.com/memverify/memverify/impl/overlap"
	spec "github.com/memverify/memverify/model/overlap"
)

// overlapRaw is what FuzzOverlap decodes from the fuzzer's bytes: one 64-bit
// word per field, in order (after the 8 bytes gofuzz keeps for its fallback
// seed), big-endian. decode maps each word to a small bounded value, so the
// seeds below can be written as the views they stand for.
type overlapRaw struct {
	Mode uint64 // bit 0: strides × (2^33+1); bit 1: move the pair to the top of the address space
	A, B overlapRawView
}

type overlapRawView struct {
	Low, Elem, Rank uint64 // lowest byte % 1024; ElemSize-1 % 8; rank % 5
	Shape           [4]uint64
	Strides         [4]uint64 // stride+256 % 513: [-256, 256]
}

// Fuzz fills the struct one word per field, so that a byte string maps to
// exactly one pair.
func (r *overlapRaw) Fuzz(c gofuzz.Continue) {
	r.Mode = c.Uint64()
	for _, v := range []*overlapRawView{&r.A, &r.B} {
		v.Low, v.Elem, v.Rank = c.Uint64(), c.Uint64(), c.Uint64()
		for d := range v.Shape {
			v.Shape[d] = c.Uint64()
		}
		for d := range v.Strides {
			v.Strides[d] = c.Uint64()
		}
	}
}

const hugeStride = 1<<33 + 1

func (v overlapRawView) decode(huge bool) spec.View {
	rank := int(v.Rank % 5)
	out := spec.View{ElemSize: int64(v.Elem%8) + 1, Shape: make([]int64, rank), Strides: make([]int64, rank)}
	low := int64(v.Low % 1024)
	for d := range rank {
		out.Shape[d] = int64(v.Shape[d] % 17)
		out.Strides[d] = int64(v.Strides[d]%513) - 256
		if huge {
			out.Strides[d] *= hugeStride
		}
	}
	out.Offset = low
	for d, n := range out.Shape {
		if n > 1 && out.Strides[d] < 0 {
			out.Offset -= (n - 1) * out.Strides[d]
		}
	}
	return out
}

// decode returns the pair, or false when it is too big for the model to
// check quickly.
func (r overlapRaw) decode() (a, b spec.View, ok bool) {
	a, b = r.A.decode(r.Mode&1 != 0), r.B.decode(r.Mode&1 != 0)
	for _, v := range []spec.View{a, b} {
		if n, _ := v.Numel(); n*v.ElemSize > 1<<13 {
			return a, b, false
		}
	}
	if r.Mode&2 != 0 {
		top := max(a.Offset, b.Offset)
		for _, v := range []spec.View{a, b} {
			if _, hi, ok := v.Bounds(); ok {
				top = max(top, hi)
			}
		}
		a.Offset += math.MaxInt64 - top
		b.Offset += math.MaxInt64 - top
	}
	return a, b, true
}

// encodeOverlap is decode's inverse for views within its bounds.
func encodeOverlap(mode uint64, a, b spec.View) []byte {
	words := []uint64{0, mode} // the first word seeds gofuzz's fallback source
	for _, v := range []spec.View{a, b} {
		lo, _, ok := v.Bounds()
		if !ok {
			lo = v.Offset
		}
		words = append(words, uint64(lo), uint64(v.ElemSize-1), uint64(len(v.Shape)))
		var shape, strides [4]uint64
		for d := range v.Shape {
			s := v.Strides[d]
			if mode&1 != 0 {
				s /= hugeStride
			}
			shape[d], strides[d] = uint64(v.Shape[d]), uint64(s+256)
		}
		words = append(append(words, shape[:]...), strides[:]...)
	}
	out := make([]byte, 8*len(words))
	for i, w := range words {
		binary.BigEndian.PutUint64(out[8*i:], w)
	}
	return out
}

func view(off, elem int64, shape, strides []int64) spec.View {
	return spec.View{Offset: off, ElemSize: elem, Shape: shape, Strides: strides}
}

// overlapClassics are the cases any overlap checker is first tested on, with
// the model's answer. x is a 4×16 matrix of 4-byte elements (strides 64, 4).
var overlapClassics = []struct {
	name string
	mode uint64
	a, b spec.View
	want spec.Verdict
}{
	{"equal strides, offset by half an element", 0, view(0, 4, []int64{4}, []int64{8}), view(2, 4, []int64{4}, []int64{8}), spec.Yes},
	{"equal strides, interleaved (the seed's GCD example)", 0, view(0, 4, []int64{4}, []int64{8}), view(4, 4, []int64{4}, []int64{8}), spec.No},
	{"f32 against int8 over the same bytes", 0, view(0, 4, []int64{4}, []int64{4}), view(0, 1, []int64{16}, []int64{1}), spec.Yes},
	{"strided f32 against the int8 gaps", 0, view(0, 4, []int64{3}, []int64{8}), view(4, 1, []int64{4}, []int64{1}), spec.No},
	{"f32 against one int8 inside an element", 0, view(0, 4, []int64{3}, []int64{8}), view(10, 1, []int64{}, []int64{}), spec.Yes},
	{"a view against its reverse", 0, view(0, 4, []int64{8}, []int64{4}), view(28, 4, []int64{8}, []int64{-4}), spec.Yes},
	{"first half against the reversed second half", 0, view(0, 4, []int64{4}, []int64{4}), view(28, 4, []int64{4}, []int64{-4}), spec.No},
	{"broadcast rows against the next row", 0, view(0, 4, []int64{3, 4}, []int64{0, 4}), view(16, 4, []int64{2}, []int64{16}), spec.No},
	{"broadcast rows against their last element", 0, view(0, 4, []int64{3, 4}, []int64{0, 4}), view(12, 4, []int64{2}, []int64{16}), spec.Yes},
	{"column tiles x[:, 0:8] and x[:, 8:16]", 0, view(0, 4, []int64{4, 8}, []int64{64, 4}), view(32, 4, []int64{4, 8}, []int64{64, 4}), spec.No},
	{"column tiles x[:, 0:8] and x[:, 7:15]", 0, view(0, 4, []int64{4, 8}, []int64{64, 4}), view(28, 4, []int64{4, 8}, []int64{64, 4}), spec.Yes},
	{"x[:, ::7] against x[:, 3::3]", 0, view(0, 4, []int64{4, 3}, []int64{64, 28}), view(12, 4, []int64{4, 5}, []int64{64, 12}), spec.No},
	{"x[:, ::7] against x[:, 7::7]", 0, view(0, 4, []int64{4, 3}, []int64{64, 28}), view(28, 4, []int64{4, 2}, []int64{64, 28}), spec.Yes},
	{"x[:, ::7] against x[:, 3::3] at the top of the address space", 2, view(0, 4, []int64{4, 3}, []int64{64, 28}), view(12, 4, []int64{4, 5}, []int64{64, 12}), spec.No},
	{"sparse huge strides meeting", 1, view(0, 1, []int64{3}, []int64{5 * hugeStride}), view(9*hugeStride, 1, []int64{4}, []int64{-3 * hugeStride}), spec.Yes},
	{"empty view on the bytes of another", 0, view(0, 4, []int64{4}, []int64{4}), view(4, 4, []int64{0}, []int64{4}), spec.No},
	{"rank 0 against a size-1 dim with a junk stride", 0, view(8, 4, []int64{}, []int64{}), view(8, 2, []int64{1}, []int64{-200}), spec.Yes},
	// One layout at two places: the shifted-copy path.
	{"8x8 tiles side by side", 0, view(0, 4, []int64{8, 8}, []int64{64, 4}), view(32, 4, []int64{8, 8}, []int64{64, 4}), spec.No},
	{"8x8 tiles, the second with its rows reversed", 0, view(0, 4, []int64{8, 8}, []int64{64, 4}), view(32+7*64, 4, []int64{8, 8}, []int64{-64, 4}), spec.No},
	{"a strided copy one byte short of the next element", 0, view(0, 2, []int64{3}, []int64{10}), view(9, 2, []int64{3}, []int64{10}), spec.Yes},
	{"a strided copy two bytes short of the next element", 0, view(0, 2, []int64{3}, []int64{10}), view(8, 2, []int64{3}, []int64{10}), spec.No},
}

// FuzzOverlap decodes two views and checks Exact (both ways round), the
// prepared path and the bounded one against the brute-force model, BBox
// for misses, and the questions about one view's layout (GapFree, Covers,
// InternalOverlap) against the model's answers.
func FuzzOverlap(f *testing.F) {
	for _, c := range overlapClassics {
		f.Add(encodeOverlap(c.mode, c.a, c.b))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var raw overlapRaw
		gofuzz.NewFromGoFuzz(data).Fuzz(&raw)
		a, b, ok := raw.decode()
		if !ok {
			return
		}
		op, rev := spec.Op{A: a, B: b}, spec.Op{A: b, B: a}
		want := op.Apply(spec.Overlap)
		if got := op.Apply(impl.Exact); got != want {
			t.Fatalf("%v: Exact %v, model %v", op, got, want)
		}
		if got := rev.Apply(impl.Exact); got != want {
			t.Fatalf("%v: Exact %v, model %v", rev, got, want)
		}
		if got := op.Apply(impl.PreparedChecker); got != want {
			t.Fatalf("%v: ExactPrepared %v, model %v", op, got, want)
		}
		if got := op.Apply(impl.BoundedChecker); got != want {
			t.Fatalf("%v: ExactBounded %v, model %v", op, got, want)
		}
		if got := op.Apply(impl.BBox); got.Err != want.Err || (want.Verdict == spec.Yes && got.Verdict != spec.Yes) {
			t.Fatalf("%v: BBox %v, model %v", op, got, want)
		}
		checkLayoutQueries(t, a, b)
	})
}

// checkLayoutQueries holds GapFree, Covers and InternalOverlap of
// impl/overlap to the model's on the decoded views.
func checkLayoutQueries(t *testing.T, a, b spec.View) {
	if got, want := impl.GapFree(a), spec.GapFree(a); got != want {
		t.Fatalf("GapFree(%v) = %v, model %v", a, got, want)
	}
	got, err := impl.Covers(a, b)
	want, werr := spec.Covers(a, b)
	if got != want || spec.ErrName(err) != spec.ErrName(werr) {
		t.Fatalf("Covers(%v, %v) = %v, %v; model %v, %v", a, b, got, err, want, werr)
	}
	iv, err := impl.InternalOverlap(b)
	wv, werr := spec.InternalOverlap(b)
	if iv != wv || spec.ErrName(err) != spec.ErrName(werr) {
		t.Fatalf("InternalOverlap(%v) = %v, %v; model %v, %v", b, iv, err, wv, werr)
	}
}

// TestOverlapClassics checks that each classic seed decodes to its views and
// that the model gives the expected answer (so the seeds test what they say).
func TestOverlapClassics(t *testing.T) {
	for _, c := range overlapClassics {
		var raw overlapRaw
		gofuzz.NewFromGoFuzz(encodeOverlap(c.mode, c.a, c.b)).Fuzz(&raw)
		a, b, ok := raw.decode()
		if !ok {
			t.Fatalf("%s: too big", c.name)
		}
		if c.mode&2 == 0 && (a.String() != c.a.String() || b.String() != c.b.String()) {
			t.Errorf("%s: decodes to %v, %v; want %v, %v", c.name, a, b, c.a, c.b)
		}
		for _, ch := range []struct {
			name  string
			check spec.Checker
		}{{"model", spec.Overlap}, {"Exact", impl.Exact}} {
			if got, err := ch.check(a, b); err != nil || got != c.want {
				t.Errorf("%s: %s says %v, %v; want %v", c.name, ch.name, got, err, c.want)
			}
		}
	}
}
