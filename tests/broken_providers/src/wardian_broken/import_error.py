raise ImportError("wardian_broken needs the library frobnicate, which is not installed")
