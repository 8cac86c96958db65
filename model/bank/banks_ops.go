package bank

import "fmt"

// BanksOpKind names the Banks call a BanksOp makes.
type BanksOpKind uint8

// The Banks calls.
const (
	OpAllocateBuffer BanksOpKind = iota
	OpAllocateSharded
	OpFreeBuffer
	OpPageAddress
)

// BanksOp is one Banks call as data. Fields a kind does not use are ignored.
type BanksOp struct {
	Kind     BanksOpKind
	Size     int64
	PageSize int64
	Dir      Direction
	Banks    []int // AllocateSharded
	Addr     Addr  // FreeBuffer, PageAddress
	Page     int64 // PageAddress
}

// BanksResult is the comparable outcome of a BanksOp.
type BanksResult struct {
	Addr Addr // the buffer's address, or the page's absolute address
	Bank int  // PageAddress only
	Err  string
}

func (r BanksResult) String() string {
	if r.Err != "" {
		return r.Err
	}
	return fmt.Sprintf("bank %d %#x", r.Bank, uint64(r.Addr))
}

// String prints the op as a Go-like call.
func (o BanksOp) String() string {
	switch o.Kind {
	case OpAllocateBuffer:
		return fmt.Sprintf("AllocateBuffer(%d, %d, %v)", o.Size, o.PageSize, o.Dir)
	case OpAllocateSharded:
		return fmt.Sprintf("AllocateSharded(%d, %d, %v, %v)", o.Size, o.PageSize, o.Banks, o.Dir)
	case OpFreeBuffer:
		return fmt.Sprintf("FreeBuffer(%#x)", uint64(o.Addr))
	case OpPageAddress:
		return fmt.Sprintf("PageAddress(%#x, %d)", uint64(o.Addr), o.Page)
	}
	return fmt.Sprintf("BanksOp(%d)", o.Kind)
}

// Apply runs the op against b.
func (o BanksOp) Apply(b Banks) BanksResult {
	var r BanksResult
	var err error
	switch o.Kind {
	case OpAllocateBuffer:
		r.Addr, err = b.AllocateBuffer(o.Size, o.PageSize, o.Dir)
	case OpAllocateSharded:
		r.Addr, err = b.AllocateSharded(o.Size, o.PageSize, o.Banks, o.Dir)
	case OpFreeBuffer:
		err = b.FreeBuffer(o.Addr)
	case OpPageAddress:
		r.Bank, r.Addr, err = b.PageAddress(o.Addr, o.Page)
	default:
		err = fmt.Errorf("unknown op kind %d", o.Kind)
	}
	if err != nil {
		return BanksResult{Err: ErrName(err)}
	}
	return r
}
