package bugs

import "testing"

func TestCatalogueIsSortedAndRefusesDuplicates(t *testing.T) {
	Register(Bug{ID: "zz-test/b", Domain: "zz-test", Impl: "X", Killer: "P", Summary: "b"},
		Bug{ID: "zz-test/a", Domain: "zz-test", Impl: "X", Killer: "P", Summary: "a"})
	var got []ID
	for _, b := range Catalogue() {
		if b.Domain == "zz-test" {
			got = append(got, b.ID)
		}
	}
	if len(got) != 2 || got[0] != "zz-test/a" {
		t.Fatalf("catalogue order %v, want zz-test/a first", got)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a duplicate ID was accepted")
		}
	}()
	Register(Bug{ID: "zz-test/a", Domain: "zz-test", Impl: "X", Killer: "P"})
}

func TestActivateMatchesTheBuild(t *testing.T) {
	err := Activate("zz-test/unknown")
	if err == nil {
		t.Fatal("an unknown bug was activated")
	}
	if On("zz-test/unknown") {
		t.Fatal("On reports a bug that was refused")
	}
	if !Enabled && Activate("") != nil {
		t.Fatal("Activate(\"\") must always succeed")
	}
}
