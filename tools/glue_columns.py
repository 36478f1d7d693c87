"""run_glue.py's choice of labels and text columns for local --train_file data (transformers' examples,
text-classification), shared by the fixture generator (make_task_data_reference.py) and the Trainer
reference (hf_reference_classification.py)."""


def glue_columns(train):
    """From the training split of datasets' csv / json builder: (is_regression, label_list, key1, key2).
    A float label column is a regression (label_list None); otherwise the label list is the sorted unique
    labels. The text columns are sentence1 / sentence2 when both exist, else the first two non-label
    columns, else the first one alone (key2 None)."""
    is_regression = train.features["label"].dtype in ["float32", "float64"]
    label_list = None
    if not is_regression:
        label_list = train.unique("label")
        label_list.sort()
    non_label_column_names = [n for n in train.column_names if n != "label"]
    if "sentence1" in non_label_column_names and "sentence2" in non_label_column_names:
        key1, key2 = "sentence1", "sentence2"
    elif len(non_label_column_names) >= 2:
        key1, key2 = non_label_column_names[:2]
    else:
        key1, key2 = non_label_column_names[0], None
    return is_regression, label_list, key1, key2
