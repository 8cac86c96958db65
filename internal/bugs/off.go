//go:build !mutants

package bugs

import "errors"

// Enabled reports whether this binary was built with the `mutants` tag.
const Enabled = false

// On reports whether the seeded bug id is active. Without the `mutants` tag it is
// a constant false, so guarded branches compile away.
func On(ID) bool { return false }

// Active returns the active bug, "" when none. Always "" without the tag.
func Active() ID { return "" }

// Activate makes id the active bug ("" for none). Without the `mutants` tag only
// "" is accepted.
func Activate(id ID) error {
	if id == "" {
		return nil
	}
	return errors.New("bugs: this binary was built without -tags mutants")
}
