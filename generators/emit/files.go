package emit

import (
	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/model"
)

// Files collects what a Generator's Generate returns, the loop every generator shares: for
// each unit (package, version, group or client tree) Add its files or Report why it has
// none, then return Result. The zero value is ready to use.
type Files struct {
	out   map[string][]byte
	diags model.Diagnostics
	err   error
}

// Add renders f with the package doc comment doc ("" for none) to path, an absolute file
// name. After a rendering error (kept for Result) Add does nothing.
func (fs *Files) Add(path string, f *jen.File, doc string) {
	if fs.err != nil {
		return
	}
	b, err := Render(f, doc)
	if err != nil {
		fs.err = err
		return
	}
	fs.Put(path, b)
}

// Put stores rendered content at path.
func (fs *Files) Put(path string, b []byte) {
	if fs.out == nil {
		fs.out = map[string][]byte{}
	}
	fs.out[path] = b
}

// Report records problems of the input (each naming file:line), which fail the pass at
// Result; the generator goes on with the other units so that one run reports them all.
func (fs *Files) Report(ds ...model.Diagnostic) { fs.diags = append(fs.diags, ds...) }

// Fail records err, a failure of the generator itself, returned by Result; later Adds do
// nothing. A nil err is ignored.
func (fs *Files) Fail(err error) {
	if fs.err == nil {
		fs.err = err
	}
}

// Failed reports whether Fail or a rendering error ended the pass.
func (fs *Files) Failed() bool { return fs.err != nil }

// Result returns the files by path (an empty map when none), or the first failure, or else
// the reported problems as a model.Diagnostics error: without files when any is an error,
// with them when all are warnings.
func (fs *Files) Result() (map[string][]byte, error) {
	if fs.err != nil {
		return nil, fs.err
	}
	if fs.diags.HasErrors() {
		return nil, fs.diags.Err()
	}
	if err := fs.diags.Err(); err != nil {
		if fs.out == nil {
			return map[string][]byte{}, err
		}
		return fs.out, err
	}
	if fs.out == nil {
		return map[string][]byte{}, nil
	}
	return fs.out, nil
}
