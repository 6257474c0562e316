package flightsql
