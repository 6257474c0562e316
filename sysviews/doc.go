package sysviews
