package cabi

// The domains, as the suites and reports name them. This file and
// headers.go need no cgo: without a C compiler (cgo disabled) the package
// still offers the names and the headers, and nothing else.
const (
	DomainRefcount  = "refcount"
	DomainSizeclass = "sizeclass"
	DomainBank      = "bank"
	DomainOverlap   = "overlap"
	DomainTensorMap = "tensormap"
)

// Symbol returns the name under which a library exports domain's table:
// memverify_<domain>_v1.
func Symbol(domain string) string { return "memverify_" + domain + "_v1" }

// Domains lists every domain a library may export, sorted.
func Domains() []string {
	return []string{DomainBank, DomainOverlap, DomainRefcount, DomainSizeclass, DomainTensorMap}
}
