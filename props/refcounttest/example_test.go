package refcounttest_test

import (
	"flag"
	"fmt"

	"github.com/memverify/memverify/model/refcount"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/props/refcounttest"
	"pgregory.net/rapid"
)

// A registry is checked by pointing a Check function at a factory that
// builds it over the Freer the property passes in. Under go test, pass the
// *testing.T; props.Run runs a property outside go test and returns its
// outcome.
func Example() {
	res := props.Run("registry", func(t rapid.TB) {
		refcounttest.CheckStateMachine(t, func(f refcount.Freer) refcount.Registry {
			return refcount.NewLocked(f)
		})
	})
	fmt.Println(res.Outcome)
	// Output: pass
}

// retainsTwice is the model behind a wrapper with a defect: once a
// registration's count passes 2, it counts a Retain twice.
type retainsTwice struct{ *refcount.Locked }

func (r retainsTwice) Retain(p refcount.Addr) error {
	if r.Locked.Refs(p) > 2 {
		if err := r.Locked.Retain(p); err != nil {
			return err
		}
	}
	return r.Locked.Retain(p)
}

// A registry with a defect fails; res.Output holds the shrunk op trace, two
// calls long:
//
//	Refs(0x1000) = 10, the model 9
//	op trace (last step failed):
//	   1  RegisterBuffer(0x1000, 256, [0x1010 0x1020 0x1030 0x1040 0x1050 0x1060 0x1070], ArrayNew) -> ok id=1
//	   2  Retain(0x1000)                                   -> ok
func Example_retainsTwice() {
	flag.Set("rapid.nofailfile", "true") // the defect is planted: keep no fail file
	defer flag.Set("rapid.nofailfile", "false")
	res := props.Run("retainsTwice", func(t rapid.TB) {
		refcounttest.CheckStateMachine(t, func(f refcount.Freer) refcount.Registry {
			return retainsTwice{refcount.NewLocked(f)}
		})
	})
	fmt.Println(res.Outcome)
	// Output: FAIL
}
