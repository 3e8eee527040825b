package emit

import "github.com/apigen-dev/apigen/generators/model"

// Generator turns the API model into files, as controller-tools' genall.Generator. Generate
// is a pure function: it writes nothing and returns every file it wants, keyed by absolute
// path ("<package dir>/zz_generated.<name>.go"), each formatted and headed with Header.
// Problems come back as a model.Diagnostics error naming file:line; when any is an error
// (not a warning), no file is written by the caller, and Generate may return none.
type Generator interface {
	// Name is the generator's short name, used in file names and -v output ("deepcopy").
	Name() string
	Generate(api *model.API) (map[string][]byte, error)
}
