package tensormap_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/memverify/memverify/model/overlap"
	"github.com/memverify/memverify/model/tensormap"
)

func TestOpString(t *testing.T) {
	v := overlap.View{Offset: 8, ElemSize: 4, Shape: []int64{2}, Strides: []int64{4}}
	for _, c := range []struct {
		op   tensormap.Op
		want string
	}{
		{tensormap.Op{Kind: tensormap.OpInsert, Storage: 0x10, View: v, Task: 3}, "Insert(0x10, {off=8 elem=4 shape=[2] strides=[4]}, 3)"},
		{tensormap.Op{Kind: tensormap.OpLookup, Storage: 0x10, View: v}, "Lookup(0x10, {off=8 elem=4 shape=[2] strides=[4]})"},
		{tensormap.Op{Kind: tensormap.OpLookupAll, Storage: 0x10, View: v, Limit: 2}, "LookupAll(0x10, {off=8 elem=4 shape=[2] strides=[4]}, 2)"},
		{tensormap.Op{Kind: tensormap.OpRetire, Task: 7}, "Retire(7)"},
		{tensormap.Op{Kind: tensormap.OpLen}, "Len()"},
	} {
		if got := c.op.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}

func TestErrName(t *testing.T) {
	wrapped := fmt.Errorf("detail: %w", tensormap.ErrPoolExhausted)
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{wrapped, "ErrPoolExhausted"},
		{fmt.Errorf("x: %w", overlap.ErrInvalidView), "ErrInvalidView"},
		{errors.New("boom"), "other: boom"},
	} {
		if got := tensormap.ErrName(c.err); got != c.want {
			t.Errorf("ErrName(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

func TestApplyResults(t *testing.T) {
	m, err := tensormap.New(tensormap.Config{Capacity: 4})
	if err != nil {
		t.Fatal(err)
	}
	v := vec(0, 4)
	steps := []struct {
		op   tensormap.Op
		want string
	}{
		{tensormap.Op{Kind: tensormap.OpInsert, Storage: 1, View: v, Task: 1}, "ok"},
		{tensormap.Op{Kind: tensormap.OpInsert, Storage: 1, View: v, Task: 2}, "ok"},
		{tensormap.Op{Kind: tensormap.OpLookup, Storage: 1, View: v}, "task 2"},
		{tensormap.Op{Kind: tensormap.OpLookupAll, Storage: 1, View: v, Limit: 1}, "[2], ErrLimit"},
		{tensormap.Op{Kind: tensormap.OpLen}, "2"},
		{tensormap.Op{Kind: tensormap.OpLookup, Storage: 2, View: v}, "none"},
		{tensormap.Op{Kind: tensormap.OpLookupAll, Storage: 2, View: v, Limit: 1}, "[]"},
		{tensormap.Op{Kind: tensormap.OpRetire, Task: 0}, "ok"},
		{tensormap.Op{Kind: tensormap.OpInsert, Storage: 1, View: v, Task: 0}, "ErrOutOfOrder"},
	}
	for _, s := range steps {
		if got := s.op.Apply(m).String(); got != s.want {
			t.Errorf("%v -> %q, want %q", s.op, got, s.want)
		}
	}
}
