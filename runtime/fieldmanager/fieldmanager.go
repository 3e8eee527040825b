package fieldmanager

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// ResetFieldsStrategy is implemented by a storage (or the strategy behind it) whose updates
// reset some fields to their stored values, as kube-apiserver's rest.ResetFieldsStrategy:
// status on the main resource, spec on /status. Server-side apply then never records
// ownership of those fields for the request's manager.
type ResetFieldsStrategy interface {
	// GetResetFields returns, per API version ("db.example.com/v1"), the paths an update
	// resets, in the JSON field names of that version.
	GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set
}

// Config says what one FieldManager manages.
type Config struct {
	// TypeConverter converts objects of Kind to structured-merge-diff values; required.
	TypeConverter managedfields.TypeConverter
	// Convertor converts between Kind's version and Hub (runtime.UnsafeObjectConvertor of
	// the scheme for typed kinds); Defaulter defaults an applied object in Kind's version;
	// Creater creates empty objects of Kind. All required.
	Convertor runtime.ObjectConvertor
	Defaulter runtime.ObjectDefaulter
	Creater   runtime.ObjectCreater
	// Typer says the kind of an object without apiVersion and kind (a typed object fresh from
	// Creater); optional, used to answer the conversion of an empty object without converting.
	Typer runtime.ObjectTyper
	// Kind is the kind on the wire ("db.example.com/v1, Kind=Database"); managedFields
	// entries record its version. Hub is the version objects are in between the handlers
	// and storage (the internal version).
	Kind schema.GroupVersionKind
	Hub  schema.GroupVersion
	// Subresource is "" for the resource, "status" or "scale" for a subresource; entries
	// record it, and a subresource write never takes managedFields from the request.
	Subresource string
	// ResetFields are the fields the storage resets (ResetFieldsStrategy), or nil.
	ResetFields map[fieldpath.APIVersion]*fieldpath.Set
	// CustomResource selects managedfields.NewDefaultCRDFieldManager, which tolerates fields
	// the models do not declare (x-kubernetes-preserve-unknown-fields), as
	// apiextensions-apiserver builds the field managers of custom resources.
	CustomResource bool
}

// New returns the FieldManager of cfg, as kube-apiserver's installer builds one per resource
// path and version with managedfields.NewDefaultFieldManager: it records Update and Apply
// entries per manager, operation and subresource, caps the Update entries at
// managedfields' DefaultMaxUpdateManagers, migrates kubectl's client-side-apply
// last-applied-configuration owner on the first server-side apply, and reports apply
// conflicts as 409 Conflict with one cause per field and manager. It never converts an empty
// object (emptyObjects), as kube-apiserver never does. A FieldManager is safe for
// concurrent use. Errors: a missing TypeConverter.
func New(cfg Config) (*managedfields.FieldManager, error) {
	if cfg.TypeConverter == nil {
		return nil, fmt.Errorf("cannot build the field manager of %s: no type converter", cfg.Kind)
	}
	var reset map[fieldpath.APIVersion]fieldpath.Filter
	if cfg.ResetFields != nil {
		reset = fieldpath.NewExcludeFilterSetMap(cfg.ResetFields)
	}
	build := managedfields.NewDefaultFieldManager
	if cfg.CustomResource {
		build = managedfields.NewDefaultCRDFieldManager
	}
	convertor := emptyObjects{ObjectConvertor: cfg.Convertor, creater: cfg.Creater, typer: cfg.Typer}
	fm, err := build(withoutManagedFields{cfg.TypeConverter}, convertor, cfg.Defaulter, cfg.Creater, cfg.Kind, cfg.Hub, cfg.Subresource, reset)
	if err != nil {
		return nil, fmt.Errorf("cannot build the field manager of %s: %w", cfg.Kind, err)
	}
	return fm, nil
}

// ManagerName returns the manager a write is recorded under: fieldManager when the request
// names one, else the User-Agent up to its first "/" without unprintable characters, cut to
// 128 bytes (validation.FieldManagerMaxLength), as kube-apiserver's managerOrUserAgent
// ("kubectl/v1.32.0 (linux/amd64) ..." -> "kubectl").
func ManagerName(fieldManager, userAgent string) string {
	if fieldManager != "" {
		return fieldManager
	}
	prefix, _, _ := strings.Cut(userAgent, "/")
	var buf bytes.Buffer
	for _, r := range prefix {
		if !unicode.IsPrint(r) {
			continue
		}
		if buf.Len()+utf8.RuneLen(r) > validation.FieldManagerMaxLength {
			break
		}
		buf.WriteRune(r)
	}
	return buf.String()
}
