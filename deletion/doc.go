package deletion
