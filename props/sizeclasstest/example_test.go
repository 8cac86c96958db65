package sizeclasstest_test

import (
	"errors"
	"fmt"

	"github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/props/sizeclasstest"
	"pgregory.net/rapid"
)

// A pool is checked by handing its constructor to a Check function. Here the
// reference model stands in for your implementation; in a test file the
// call is sizeclasstest.CheckStateMachine(t, newMine), and props.Run is what
// runs it outside go test.
func Example() {
	res := props.Run("pool", func(t rapid.TB) {
		sizeclasstest.CheckStateMachine(t, func(d sizeclass.Device, c sizeclass.Config) (sizeclass.Pool, error) {
			return sizeclass.NewModel(d, c)
		})
	})
	fmt.Println(res.Outcome)
	// Output: pass
}

// lenientPool is a pool with a defect: it answers nil to a Free of an
// address it never handed out, where the contract says ErrUnknownPointer.
type lenientPool struct{ *sizeclass.Model }

func (p lenientPool) Free(a sizeclass.Addr) error {
	if err := p.Model.Free(a); !errors.Is(err, sizeclass.ErrUnknownPointer) {
		return err
	}
	return nil
}

// A defect fails the property, and res.Output ends with the shrunk trace:
//
//	Free(0x1) returned ok, the model 0x0 err=ErrUnknownPointer
//	op trace (last step failed):
//	   1  Free(0x1)                                        -> ok
func Example_defect() {
	res := props.Run("lenient", func(t rapid.TB) {
		sizeclasstest.CheckStateMachine(t, func(d sizeclass.Device, c sizeclass.Config) (sizeclass.Pool, error) {
			m, err := sizeclass.NewModel(d, c)
			return lenientPool{m}, err
		})
	})
	fmt.Println(res.Outcome)
	// Output: FAIL
}
