package v1

// Broken does not parse.
type Broken struct {
	A int `json:"a"
}
