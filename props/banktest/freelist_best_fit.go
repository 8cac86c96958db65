package banktest

import (
	"github.com/memverify/memverify/model/bank"
	"pgregory.net/rapid"
)

// CheckFreeListBestFit is CheckFreeListStateMachine under the best-fit
// policy, against the model's best-fit mode: the smallest free block that
// holds a feasible place, ties by address (lowest bottom-up, highest
// top-down). Its fragmenting bursts leave many gaps of one size, where a best
// fit that breaks ties wrongly or stops at the first size class shows.
func CheckFreeListBestFit(t rapid.TB, factory FreeListFactory) {
	t.Helper()
	checkFreeListMachine(t, factory, bank.BestFit)
}
