package cel

import (
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/apigen-dev/apigen/runtime/request"
)

// UserInfo returns u as Kubernetes' user.Info (nil for nil).
func UserInfo(u *request.User) user.Info {
	if u == nil {
		return &user.DefaultInfo{}
	}
	return &user.DefaultInfo{Name: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
}
