package planner
