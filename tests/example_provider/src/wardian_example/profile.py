from wardian_core.provider_models import InputProfile

INPUT_PROFILE = InputProfile(
    submit_key="\r",
    bracketed_paste=True,
    paste_threshold=120,
    settle_seconds=0.1,
    approve_keys="y",
    reject_keys="n",
)
