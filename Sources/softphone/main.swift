print("softphone")
