package audit

import (
	"bytes"
	"encoding/json"
)

// withoutManagedFields returns body without metadata.managedFields (of the object, or of
// each item of a list) when omit, as kube's audit omitManagedFields; body unchanged when not
// omit, when it names no managedFields, or when it is not a JSON object.
func withoutManagedFields(body json.RawMessage, omit bool) json.RawMessage {
	if !omit || !bytes.Contains(body, []byte(`"managedFields"`)) {
		return body
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return body
	}
	changed := dropManagedFields(obj)
	if raw, ok := obj["items"]; ok {
		var items []map[string]json.RawMessage
		if json.Unmarshal(raw, &items) == nil {
			for _, item := range items {
				changed = dropManagedFields(item) || changed
			}
			if data, err := json.Marshal(items); err == nil {
				obj["items"] = data
			}
		}
	}
	if !changed {
		return body
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return body
	}
	return out
}

// dropManagedFields removes metadata.managedFields from obj; it reports whether there were any.
func dropManagedFields(obj map[string]json.RawMessage) bool {
	var metadata map[string]json.RawMessage
	if json.Unmarshal(obj["metadata"], &metadata) != nil {
		return false
	}
	if _, ok := metadata["managedFields"]; !ok {
		return false
	}
	delete(metadata, "managedFields")
	data, err := json.Marshal(metadata)
	if err != nil {
		return false
	}
	obj["metadata"] = data
	return true
}
