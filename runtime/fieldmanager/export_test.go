package fieldmanager

import "k8s.io/apimachinery/pkg/runtime"

// EmptyObjects wraps c as New wraps the convertor it is given.
func EmptyObjects(c runtime.ObjectConvertor, creater runtime.ObjectCreater, typer runtime.ObjectTyper) runtime.ObjectConvertor {
	return emptyObjects{ObjectConvertor: c, creater: creater, typer: typer}
}

// IsEmptyObject is isEmptyObject.
var IsEmptyObject = isEmptyObject
