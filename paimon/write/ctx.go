package write

import "context"

var contextBackground = context.Background()
