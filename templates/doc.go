// Package templates holds the text/template files that `apigen init` and `apigen create api`
// render into an API repository, embedded in the apigen binary. Package scaffold renders
// them; nothing else reads them. Go code that apigen generates (zz_generated.*.go) is emitted
// with jennifer under generators/, never from here.
package templates
