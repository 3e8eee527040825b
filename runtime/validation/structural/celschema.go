package structural

import (
	"encoding/json"
	"fmt"
	"maps"

	"k8s.io/apiserver/pkg/cel/common"
	celopenapi "k8s.io/apiserver/pkg/cel/openapi"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// attachCELSchemas gives every node of s with x-kubernetes-validations rules the schema its values are bound to CEL
// with (s.celSchema), as apiextensions-apiserver's CEL validator binds them (common.UnstructuredToVal over the
// node's schema; the root's with WithTypeAndObjectMeta). m is the decoded openAPIV3Schema s was parsed from; it is
// read into one kube-openapi spec.Schema tree, and only when s has rules. Errors: m does not encode as a
// kube-openapi schema (New has checked it before, so only a schema New rejected can).
func attachCELSchemas(s *Structural, m map[string]any) error {
	if !s.HasRules() {
		return nil
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("cannot encode the schema for CEL: %w", err)
	}
	root := &spec.Schema{}
	if err := json.Unmarshal(raw, root); err != nil {
		return fmt.Errorf("cannot decode the schema for CEL: %w", err)
	}
	c := newCachedSchema(root)
	s.attachCEL(c)
	if s.celSchema != nil {
		s.celSchema = c.WithTypeAndObjectMeta()
	}
	return nil
}

// attachCEL sets celSchema on s and the nodes below it that have rules, c being s's schema.
func (s *Structural) attachCEL(c common.Schema) {
	if s == nil || c == nil || !s.anyRules {
		return
	}
	if len(s.rules) > 0 {
		s.celSchema = c
	}
	props := c.Properties()
	for k, sub := range s.properties {
		sub.attachCEL(props[k])
	}
	s.items.attachCEL(c.Items())
	if ap := c.AdditionalProperties(); ap != nil {
		s.additional.attachCEL(ap.Schema())
	}
}

// cachedSchema is celopenapi.Schema (k8s.io/apiserver's common.Schema over a kube-openapi schema) with its
// properties, items and additionalProperties built once: celopenapi.Schema builds them anew on every call, and
// common.UnstructuredToVal asks for them for every value it binds and every field a rule reads.
type cachedSchema struct {
	*celopenapi.Schema
	properties map[string]common.Schema
	items      common.Schema       // nil without items
	additional common.SchemaOrBool // nil without additionalProperties
}

var _ common.Schema = (*cachedSchema)(nil)

// newCachedSchema returns the cachedSchema of sp and of every schema below it.
func newCachedSchema(sp *spec.Schema) *cachedSchema {
	c := &cachedSchema{Schema: &celopenapi.Schema{Schema: sp}}
	if sp.Properties != nil {
		c.properties = make(map[string]common.Schema, len(sp.Properties))
		for k := range sp.Properties {
			p := sp.Properties[k]
			c.properties[k] = newCachedSchema(&p)
		}
	}
	if sp.Items != nil && sp.Items.Schema != nil {
		c.items = newCachedSchema(sp.Items.Schema)
	}
	if ap := sp.AdditionalProperties; ap != nil {
		sb := &cachedSchemaOrBool{SchemaOrBool: &celopenapi.SchemaOrBool{SchemaOrBool: ap}}
		if ap.Schema != nil {
			sb.schema = newCachedSchema(ap.Schema)
		}
		c.additional = sb
	}
	return c
}

// Properties returns the schemas of the properties (nil when the schema has none); callers must not modify it.
func (c *cachedSchema) Properties() map[string]common.Schema { return c.properties }

// Items returns the schema of the items, or nil.
func (c *cachedSchema) Items() common.Schema { return c.items }

// AdditionalProperties returns additionalProperties, or nil.
func (c *cachedSchema) AdditionalProperties() common.SchemaOrBool { return c.additional }

// WithTypeAndObjectMeta returns the schema as common.WithTypeAndObjectMeta makes it for a resource's root or an
// embedded resource (apiVersion and kind strings, metadata with only name and generateName), sharing the caches of
// the other properties.
func (c *cachedSchema) WithTypeAndObjectMeta() common.Schema {
	sp := common.WithTypeAndObjectMeta(c.Schema.Schema)
	if sp == c.Schema.Schema {
		return c
	}
	out := &cachedSchema{Schema: &celopenapi.Schema{Schema: sp}, properties: maps.Clone(c.properties), items: c.items,
		additional: c.additional}
	if out.properties == nil {
		out.properties = map[string]common.Schema{}
	}
	for _, k := range []string{"kind", "apiVersion", "metadata"} {
		p := sp.Properties[k]
		out.properties[k] = newCachedSchema(&p)
	}
	return out
}

// cachedSchemaOrBool is celopenapi.SchemaOrBool with its schema built once.
type cachedSchemaOrBool struct {
	*celopenapi.SchemaOrBool
	schema common.Schema // nil for additionalProperties: true
}

// Schema returns the additionalProperties schema, or nil (additionalProperties: true).
func (c *cachedSchemaOrBool) Schema() common.Schema { return c.schema }
