j
locationweights.binp