// Package generators lists apigen's generators in the order `apigen generate` runs them.
package generators

import "github.com/apigen-dev/apigen/generators/emit"

// All returns every generator, in a fixed order.
func All() []emit.Generator {
	return []emit.Generator{}
}
