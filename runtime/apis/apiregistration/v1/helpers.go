package v1

// AvailableCondition returns a copy of the APIService's Available condition, or nil when it
// has none.
func (s *APIServiceStatus) AvailableCondition() *APIServiceCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == Available {
			c := s.Conditions[i]
			return &c
		}
	}
	return nil
}
