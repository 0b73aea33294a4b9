"""The CI layer: the baseline of accepted findings, the files a change touched, the filters
over one engine report, and the runners the hook and the GitHub Action call."""
